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
    assert "Not run: PyMC" in text  # a missing engine is said, not hidden
    assert "Figures show" in text and "(disagree)" in text
