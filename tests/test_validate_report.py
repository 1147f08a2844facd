"""``zoo validate --report``: the battery, agreement tables and SBC ECDFs in one page."""

import json

from test_report import _check_page

from zoo.cli import main


def test_validate_report_shows_the_battery_and_the_sbc_band(tmp_path, capsys):
    html = tmp_path / "html"
    args = ["validate", "beta-binomial", "--fault", "failures-as-trials", "--workers", "0"]
    settings = ["--checks", "exact,sbc", "--simulations", "20", "--sbc-draws", "100"]
    settings += ["--draws", "300", "--chains", "2"]
    status = main([*args, *settings, "--json", "--quiet", "--report", str(html)])
    result = json.loads(capsys.readouterr().out)
    assert status == 1 and result["verdict"] == "fail"
    page = _check_page(html / "index.html")
    text = (html / "index.html").read_text()
    assert len(page.images) == 1  # the SBC ECDF-difference figure
    assert "Simulation-based calibration" in text and "Agreement with exact posteriors" in text
    assert '<span class="v disagree">fail</span>' in text  # fail coloured like disagree
    assert "row-disagree" in page.rows
