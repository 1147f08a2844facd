"""The report of ``zoo check``: self-contained, failing rows highlighted, gaps said."""

from tests.support.report_pages import check_page
from zoo.reports.check_report import check_report


def test_check_report_is_self_contained_with_images_of_stated_size(report_checks, tmp_path):
    good, broken = report_checks
    assert good.verdict == "agree" and broken.verdict == "disagree"
    index = check_report([good, broken]).write(tmp_path / "report")
    page = check_page(index)
    # Per model: posterior + rank + trace for the one engine that ran.
    assert len(page.images) == 6
    text = index.read_text()
    assert 'class="row-disagree"' in text  # failing rows highlighted
    assert '<span class="v disagree">disagree</span>' in text
    assert '<span class="v agree">agree</span>' in text
    assert "PyMC not run" in text  # a missing engine is said, not hidden
    assert "Figures show" in text and "(disagree)" in text


def test_one_chain_gets_traces_and_no_rank_plot():
    # A rank plot compares chains; with one there is nothing to compare (ArviZ's envelope
    # raised "requires at least 2 chains" after sampling, and no report was written).
    from tests.support.report_problems import gibbs_check
    from zoo.reports.check_report import check_figures

    figures, _ = check_figures(gibbs_check(draws=200, chains=1))
    names = [figure.name for figure in figures]
    assert "beta-binomial-gibbs-trace" in names
    assert not any(name.endswith("-rank") for name in names)
