"""``zoo validate --report``: the battery, agreement tables and SBC ECDFs in one page."""

import json
from html import escape as html_escape

import pytest

from tests.support.report_pages import check_page
from zoo.cli import main


@pytest.mark.slow  # 19 s: the default run stays under 10 minutes on 2 cores, cold
def test_validate_report_shows_the_battery_and_the_sbc_band(tmp_path, capsys):
    html = tmp_path / "html"
    args = ["validate", "beta-binomial", "--fault", "failures-as-trials", "--workers", "0"]
    settings = ["--checks", "exact,sbc", "--simulations", "20", "--sbc-draws", "100"]
    settings += ["--draws", "300", "--chains", "2"]
    status = main([*args, *settings, "--json", "--quiet", "--report", str(html)])
    result = json.loads(capsys.readouterr().out)
    assert status == 1 and result["verdict"] == "fail"
    page = check_page(html / "index.html")
    text = (html / "index.html").read_text()
    # The SBC ECDF-difference figure, and the failing quantities of each exact data set
    # over their exact densities.
    exact = next(check for check in result["checks"] if check["check"] == "exact")
    problems = {finding["problem"] for finding in exact["findings"]}
    images = {image["src"] for image in page.images}
    assert len(images) == 1 + len(problems)
    assert {f"exact-{problem}.png" for problem in problems} <= images
    assert "Simulation-based calibration" in text and "Agreement with exact posteriors" in text
    # Every finding is in the report with its numbers, not only the first few.
    first = exact["findings"][0]
    assert f"exact: {len(exact['findings'])} finding(s)" in text
    assert html_escape(first["quantity"]) in text and html_escape(first["statistic"]) in text
    assert '<span class="v disagree">fail</span>' in text  # fail coloured like disagree
    assert "row-disagree" in page.rows


def test_validate_report_shows_the_kernel_checks(tmp_path, capsys):
    html = tmp_path / "html"
    args = ["validate", "beta-binomial", "--fault", "jacobian-omitted", "--workers", "0"]
    status = main(
        [*args, "--checks", "invariance,geweke", "--json", "--quiet", "--report", str(html)]
    )
    result = json.loads(capsys.readouterr().out)
    assert status == 1 and result["verdict"] == "fail"
    by_check = {check["check"]: check for check in result["checks"]}
    # The Jacobian is in the slice sweep over (u, v): the step conditional is named.
    assert any(name.startswith("step: ") for name in by_check["invariance"]["failing"])
    assert by_check["geweke"]["details"]["rows"]
    check_page(html / "index.html")
    text = (html / "index.html").read_text()
    assert "Geweke&#x27;s joint-distribution test" in text or "Geweke's joint" in text
    assert "Invariance of each conditional" in text


def test_failing_quantity_figures_show_the_exact_density_and_legible_labels():
    import matplotlib.pyplot as plt

    from tests.support.text_layout import assert_texts_legible
    from zoo.reports.validation_report import _failing_figures
    from zoo.validation import validate

    result = validate(
        "beta-binomial",
        fault="swapped-a-b",
        checks=("exact",),
        problems=["rats-hierarchical"],
        budgets={"exact": {"draws": 300, "chains": 2}},
        workers=0,
    )
    (exact,) = result.checks
    (figure,) = _failing_figures(exact)
    assert "rats-hierarchical" in figure.caption
    try:
        assert_texts_legible(figure.figure)
        # The exact density is drawn where its mass is, though the draws are elsewhere:
        # each panel's x range holds the exact median of its quantity.
        reference = exact.draws["rats-hierarchical"]["reference"]
        checked = 0
        for axes in figure.figure.axes:
            title = axes.get_title().replace("\n", "")
            if title in reference.marginals and not reference.marginals[title].shape:
                low, high = axes.get_xlim()
                assert low <= float(reference.marginals[title].ppf(0.5)) <= high, title
                checked += 1
        assert checked
    finally:
        plt.close(figure.figure)
