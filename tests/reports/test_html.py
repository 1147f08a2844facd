"""The HTML report: self-contained page, PNGs of the stated size, verdicts coloured."""

import os

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from tests.support.report_pages import check_page
from tests.support.text_layout import assert_texts_legible
from zoo.reports import html as html_module
from zoo.reports.figures import sbc_outside, select_elements
from zoo.reports.html import Report, ReportFigure, Table, numeric_columns


def test_report_api_sections_tables_and_figures(tmp_path):
    report = Report("API", text="intro")
    figure = plt.figure(figsize=(3, 2))
    figure.add_subplot().plot([0, 1], [1, 0])
    table = Table(["quantity", "verdict"], [["x", "agree"], ["y", "inconclusive"]])
    report.add_section("One", text="a\n\nb", table=table, figures=[figure])
    second = plt.figure(figsize=(2, 2))
    report.add_section(
        "One",  # same title twice: distinct anchors and file names
        table=Table.from_records([{"q": "z", "v": "disagree"}], status=["disagree"]),
        figures=[ReportFigure(second, "One", "caption")],
        status="disagree",
    )
    index = report.write(tmp_path)
    page = check_page(index)
    assert [int(i["width"]) for i in page.images] == [300, 200]
    assert len({i["src"] for i in page.images}) == 2
    assert {"one", "one-2"} <= page.ids
    assert "row-disagree" in page.rows
    # Figures are closed once rendered (other tests' figures may still be open).
    assert not {figure.number, second.number} & set(plt.get_fignums())


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"columns": ["a"], "rows": [["x", "y"]]}, "rows"),
        ({"columns": ["a"], "rows": [["x"]], "status": []}, "status"),
    ],
)
def test_table_checks_its_shape(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Table(**kwargs)


def test_report_rejects_bad_inputs(tmp_path):
    with pytest.raises(ValueError, match="title"):
        Report("")
    report = Report("x")
    with pytest.raises(ValueError, match="status"):
        report.add_section("s", status="fine")
    with pytest.raises(ValueError, match="figures"):
        report.add_section("s", figures=["not a figure"])
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="directory"):
        report.write(tmp_path / "file")


def _band(n_sims, grid):
    # A crude pointwise binomial band: the test only needs arrays of the right shape.
    half = 3.5 * np.sqrt(grid * (1 - grid) / n_sims)
    return grid - half, grid + half


def test_sbc_section_plots_ecdf_differences_and_flags_leavers(tmp_path):
    rng = np.random.default_rng(0)
    max_rank, n_sims = 99, 200
    ranks = rng.integers(0, max_rank + 1, size=(n_sims, 3))
    ranks[:, 2] = rng.integers(0, 30, size=n_sims)  # a miscalibrated quantity
    grid = np.arange(1, max_rank + 1) / (max_rank + 1)
    lower, upper = _band(n_sims, grid)
    outside = sbc_outside(ranks, max_rank=max_rank, grid=grid, lower=lower, upper=upper)
    assert outside["outside"] == [False, False, True]
    report = Report("validate")
    section = report.add_sbc_section(
        "SBC: beta-binomial",
        ranks,
        max_rank=max_rank,
        grid=grid,
        lower=lower,
        upper=upper,
        quantities=["a", "b", "theta[0]"],
    )
    assert section.status == "disagree"
    page = check_page(report.write(tmp_path))
    assert len(page.images) == 1
    assert page.rows.count("row-disagree") == 1


def test_sbc_inputs_are_checked():
    grid = np.linspace(0.1, 0.9, 5)
    with pytest.raises(ValueError, match="ranks"):
        sbc_outside([[5]], max_rank=3, grid=grid, lower=grid, upper=grid)
    with pytest.raises(ValueError, match="lower"):
        sbc_outside([[1]], max_rank=3, grid=grid, lower=grid[:2], upper=grid)


def test_selection_is_bounded_and_puts_failures_first(report_checks):
    from zoo.reports.figures import quantities

    good, _ = report_checks
    by_variable = quantities(good.run.trees["gibbs"]["posterior"].to_dataset(), good.reference)
    labels = [q.label for q in by_variable["theta"]]
    chosen = select_elements(by_variable, [labels[4]], per_variable=2, total=3)
    assert [q.label for q in chosen] == [labels[4], labels[0], labels[1]]


def test_posterior_figure_handles_discrete_and_missing_references(tmp_path):
    from arviz_base import from_dict
    from scipy import stats

    from zoo.diagnostics import Marginal, Reference
    from zoo.reports.figures import posterior_figure, quantities

    rng = np.random.default_rng(1)
    counts = stats.poisson([2.0, 7.0])
    tree = from_dict(
        {
            "posterior": {
                "k": rng.poisson([2.0, 7.0], size=(2, 300, 2)).astype(float),
                "free": rng.normal(size=(2, 300)),  # no exact marginal: engines only
            }
        },
        dims={"k": ["site"]},
        coords={"site": ["a", "b"]},
    )
    reference = Reference(
        {"k": Marginal.from_scipy(counts, ("site",), discrete=True)},
        coords={"site": np.array(["a", "b"])},
    )
    chosen = [
        q for qs in quantities(tree["posterior"].to_dataset(), reference).values() for q in qs
    ]
    assert [q.label for q in chosen] == ["k[site=a]", "k[site=b]", "free"]
    figure = posterior_figure({"Gibbs": tree}, chosen, reference, title="discrete")
    assert "ECDF" in figure.get_label() and "CDF, dashed black" in figure.get_label()
    assert_texts_legible(figure)
    report = Report("discrete")
    report.add_section("discrete", figures=[figure])
    (image,) = check_page(report.write(tmp_path)).images
    assert (int(image["width"]), int(image["height"])) == (1200, 340)


def test_text_columns_are_left_aligned_and_number_columns_right_aligned():
    # The validate summary: a long sentence must read from the left, numbers line up
    # on the right; placeholders ("-", "(no mean)") do not make a number column text.
    summary = Table(
        ["check", "verdict", "alpha", "seconds", "what was found", "mean"],
        [
            [
                "exact",
                "fail",
                "0.0025",
                29.6,
                "3 data set(s); rats: a (disagree)",
                "0.0639 ± 0.001",
            ],
            ["sbc", "pass", "0.0025", 3, "100 simulations, 12 quantities", "(no mean)"],
            ["geweke", "inconclusive", "1e-3", "-", "R-hat 1.2 > 1.01", "-1.5e-05"],
        ],
    )
    assert numeric_columns(summary) == [False, False, True, True, False, True]
    report = Report("align")
    report.add_section("s", table=summary)
    text = report.html()
    assert '<th class="num">alpha</th>' in text and "<th>what was found</th>" in text
    assert '<td class="num">29.6</td>' in text
    assert "<td>3 data set(s); rats: a (disagree)</td>" in text
    assert "th,td{" in text and "text-align:left" in text
    # Twin: one sentence among numbers makes the column text (left), not numbers.
    mixed = Table(["x"], [["1.5"], ["see the note"]])
    assert numeric_columns(mixed) == [False]
    assert numeric_columns(Table(["x"], [["-"], [""]])) == [False]  # no number at all


def test_write_replaces_a_report_in_place_and_leaves_no_staging_folder(tmp_path):
    # Written into a staging folder and moved in (index.html last): the folder's other
    # files stay, the old index.html is replaced, nothing else is left beside it.
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "index.html").write_text("old report")
    (folder / "notes.txt").write_text("mine")
    index = Report("Again", text="A second report.").write(folder)
    assert index == folder / "index.html" and "A second report." in index.read_text()
    assert (folder / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
    fresh = Report("New").write(tmp_path / "new")
    assert fresh.is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["new", "report"]


def test_a_staging_folder_name_planted_beforehand_is_not_used(tmp_path):
    # The staging folder was `.NAME.partial-PID`, removed and made again: planted as a
    # symbolic link (or a folder of someone else's) it took the report's files, or had a
    # victim's folder emptied. Its name is now unpredictable and made fresh.
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    planted = tmp_path / f".report.partial-{os.getpid()}"
    planted.symlink_to(victim)
    index = Report("Planted").write(tmp_path / "report")
    assert index.is_file() and not index.parent.is_symlink()
    assert [p.name for p in victim.iterdir()] == ["keep.txt"]
    assert (victim / "keep.txt").read_text() == "mine" and planted.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == [planted.name, "report", "victim"]


def test_a_report_folder_that_is_a_symbolic_link_is_refused_and_its_target_kept(tmp_path):
    # Written through, `report -> victim` had the victim's index.html replaced.
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "index.html").write_text("mine")
    (tmp_path / "report").symlink_to(victim)
    with pytest.raises(ValueError, match="report is a symbolic link; give the folder itself"):
        Report("Planted").write(tmp_path / "report")
    assert [p.name for p in victim.iterdir()] == ["index.html"]
    assert (victim / "index.html").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "victim"]


def test_a_report_folder_swapped_for_a_link_after_its_check_gets_no_file(tmp_path):
    # The folder is checked, then its files are moved in: a link put in its place between
    # the two is refused when the files are moved, through a descriptor not following it.
    victim, staging = tmp_path / "victim", tmp_path / "staging"
    victim.mkdir()
    staging.mkdir()
    (victim / "index.html").write_text("mine")
    (staging / "index.html").write_text("the report")
    (tmp_path / "report").symlink_to(victim)
    with pytest.raises(ValueError, match="is a symbolic link"):
        html_module._move_into(staging, tmp_path / "report")
    assert (victim / "index.html").read_text() == "mine"
