"""A self-contained HTML report: sections of text, tables and PNG figures.

One ``index.html`` with inline CSS and no external URL, and the figures as PNG files
beside it, so the folder can be zipped, attached to an issue or opened offline. Any
command adds sections to a :class:`Report`: ``zoo check`` one per model
(:mod:`zoo.reports.check_report`), ``zoo validate`` its simulation-based calibration
(:meth:`Report.add_sbc_section`).

Examples
--------
>>> report = Report("My sampler")
>>> report.add_section(
...     "Agreement",
...     text="Gibbs against the exact posterior.",
...     table=Table(["quantity", "verdict"], [["theta", "agree"], ["a", "disagree"]],
...                 status=["agree", "disagree"]),
...     figures=[ReportFigure(fig, "posterior", "Posterior of theta")],
... )
>>> report.write("report")   # report/index.html and report/*.png
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import html
import io
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zoo.core.files import current_umask
from zoo.diagnostics.findings import COULD_NOT_JUDGE
from zoo.reports.figures import sbc_ecdf_figure, sbc_outside

__all__ = ["VERDICTS", "Report", "ReportFigure", "Section", "Table", "numeric_columns"]

#: Verdict words coloured wherever they start a table cell (``zoo check`` says agree or
#: disagree, ``zoo validate`` pass or fail), and the colour class each takes.
VERDICTS = ("agree", "disagree", "inconclusive", "pass", "fail", COULD_NOT_JUDGE)
_CLASS = {
    "agree": "agree",
    "pass": "agree",
    "disagree": "disagree",
    "fail": "disagree",
    "inconclusive": "inconclusive",
    COULD_NOT_JUDGE: "unjudged",
}

# Dots per inch of every PNG: with no tight bounding box the pixel size is exactly
# figsize * DPI, which the HTML states as width and height.
DPI = 100


@dataclass(frozen=True)
class Table:
    """A table for a report section.

    Parameters
    ----------
    columns : sequence of str
        Column headers.
    rows : sequence of sequence
        One sequence of cells per row, as many as columns; cells are shown with
        ``str`` (floats with 4 significant digits). A cell whose text starts with a
        verdict word (``agree``, ``disagree``, ``inconclusive``) has that word coloured.
        Columns of numbers are right-aligned, text columns left-aligned
        (:func:`numeric_columns`).
    status : sequence of str or None, optional
        One verdict (or None) per row; rows whose status is ``disagree``, ``fail`` or
        ``inconclusive`` are highlighted, so failures stand out in a long table.
    caption : str
        Shown above the table.
    collapsed : bool
        Fold the table away (an HTML ``<details>``) until clicked.
    """

    columns: Sequence[str]
    rows: Sequence[Sequence]
    status: Sequence[str | None] | None = None
    caption: str = ""
    collapsed: bool = False

    def __post_init__(self):
        width = len(self.columns)
        for i, row in enumerate(self.rows):
            if len(row) != width:
                raise ValueError(f"rows: row {i} has {len(row)} cells, expected {width}")
        if self.status is not None and len(self.status) != len(self.rows):
            raise ValueError(
                f"status: expected one per row ({len(self.rows)}), got {len(self.status)}"
            )

    @classmethod
    def from_records(cls, records: Sequence[Mapping], **kwargs) -> Table:
        """Build a table from dicts with the same keys (the columns, in first-row order)."""
        if not records:
            raise ValueError("records: need at least one row")
        columns = list(records[0])
        return cls(columns, [[record.get(c, "") for c in columns] for record in records], **kwargs)


@dataclass
class ReportFigure:
    """A matplotlib figure to put in a report, with a file stem and a caption.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        Rendered to PNG (``figsize * 100`` pixels) and closed when added to a section.
    name : str
        Stem of the PNG file (made unique and file-safe by the report).
    caption : str
        Shown under the image.
    """

    figure: object
    name: str = "figure"
    caption: str = ""


@dataclass
class _Image:
    filename: str
    png: bytes
    width: int
    height: int
    caption: str


@dataclass
class Section:
    """A titled part of a report (built by :meth:`Report.add_section`)."""

    title: str
    anchor: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    images: list[_Image] = field(default_factory=list)
    status: str | None = None


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return slug or "section"


class Report:
    """An HTML report under construction.

    Parameters
    ----------
    title : str
        Page title and top heading.
    text : str, optional
        Introductory paragraphs (blank lines separate them).
    """

    def __init__(self, title: str, *, text: str | None = None):
        if not isinstance(title, str) or not title.strip():
            raise ValueError(f"title: must be a non-empty string, got {title!r}")
        self.title = title
        self.intro = _paragraphs(text)
        self.sections: list[Section] = []
        # Anchors and file stems, each made unique in its own namespace.
        self._names: dict[str, set[str]] = {"anchor": set(), "file": set()}

    def add_section(
        self,
        title: str,
        *,
        text: str | Sequence[str] | None = None,
        table: Table | Sequence[Table] | None = None,
        figures: Sequence[ReportFigure | object] = (),
        status: str | None = None,
    ) -> Section:
        """Append a section; figures are rendered to PNG now and closed.

        Parameters
        ----------
        title : str
            Section heading (also listed in the contents at the top).
        text : str or sequence of str, optional
            Paragraphs of plain text (escaped; blank lines separate paragraphs).
        table : Table or sequence of Table, optional
        figures : sequence of ReportFigure or matplotlib Figure
            A bare Figure gets the section title as file stem and no caption.
        status : {"agree", "disagree", "inconclusive", "pass", "fail"}, optional
            A coloured badge next to the heading.

        Returns
        -------
        Section
        """
        if not isinstance(title, str) or not title.strip():
            raise ValueError(f"title: must be a non-empty string, got {title!r}")
        if status is not None and status not in VERDICTS:
            raise ValueError(f"status: must be one of {VERDICTS} or None, got {status!r}")
        tables = [] if table is None else [table] if isinstance(table, Table) else list(table)
        for t in tables:
            if not isinstance(t, Table):
                raise ValueError(f"table: expected Table objects, got {type(t).__name__}")
        anchor = self._unique(_slug(title), "anchor")
        section = Section(title, anchor, _paragraphs(text), tables, status=status)
        for item in figures:
            if not isinstance(item, ReportFigure):
                item = ReportFigure(item, name=title)
            section.images.append(self._render(item))
        self.sections.append(section)
        return section

    def add_sbc_section(
        self,
        title: str,
        ranks,
        *,
        max_rank: int | None,
        grid,
        lower,
        upper,
        quantities: Sequence[str] | None = None,
        text: str | None = None,
        max_panels: int = 12,
    ) -> Section:
        """Append a simulation-based calibration section: ECDF differences in their bands.

        Parameters
        ----------
        title : str
        ranks : array-like, shape (n_sims, n_quantities)
            Rank of the true value among ``max_rank`` posterior draws, in
            ``0..max_rank``; or, with ``max_rank=None``, normalised ranks in [0, 1]
            (``zoo.diagnostics.sbc.SBCResult.ranks``).
        max_rank : int or None
            ``L``: the number of (thinned) posterior draws each rank is taken among.
        grid : array-like, shape (n_points,)
            Points in [0, 1] where the bands are given (for example ``j / (L + 1)``).
        lower, upper : array-like, shape (n_points,) or (n_points, n_quantities)
            Simultaneous band for the ECDF of the fractional ranks ``(rank + 1) / (L + 1)``
            (or of the normalised ranks) at ``grid``, as ECDF values (not differences),
            computed by the SBC code (``zoo.diagnostics.uniformity.ecdf_band``).
        quantities : sequence of str, optional
            Names of the quantities (default ``q0, q1, ...``).
        text : str, optional
        max_panels : int
            Quantities shown in the figure: those leaving their band first, then the
            first ones; the table lists every quantity.

        Returns
        -------
        Section
            Status ``disagree`` when any ECDF leaves its band, else ``agree``.
        """
        checked = sbc_outside(ranks, max_rank=max_rank, grid=grid, lower=lower, upper=upper)
        names = checked["names"] if quantities is None else list(quantities)
        if len(names) != len(checked["outside"]):
            raise ValueError(
                f"quantities: expected {len(checked['outside'])} names, got {len(names)}"
            )
        figure = sbc_ecdf_figure(
            ranks,
            max_rank=max_rank,
            grid=grid,
            lower=lower,
            upper=upper,
            quantities=names,
            max_panels=max_panels,
        )
        rows, status = [], []
        for name, outside, deviation in zip(
            names, checked["outside"], checked["max_deviation"], strict=True
        ):
            verdict = "disagree" if outside else "agree"
            rows.append([name, f"{deviation:.3f}", "yes" if outside else "no", verdict])
            status.append(verdict)
        table = Table(
            ["quantity", "max |ECDF - uniform|", "leaves band", "verdict"],
            rows,
            status=status,
            caption=f"{checked['n_sims']} simulations"
            + ("" if max_rank is None else f", ranks among {max_rank} draws"),
        )
        return self.add_section(
            title,
            text=text,
            table=table,
            figures=[ReportFigure(figure, f"{title}-sbc-ecdf", figure.get_label())],
            status="disagree" if any(checked["outside"]) else "agree",
        )

    def write(self, directory) -> Path:
        """Write ``index.html`` and the PNG files into ``directory`` (created if needed).

        The files are written into a temporary folder beside ``directory`` and moved
        into it at the end, ``index.html`` last and after any older one is removed: a
        write stopped part-way (Ctrl-C, a full disk) never leaves a report that looks
        complete, and a new folder appears only whole.

        Returns
        -------
        pathlib.Path
            The path of ``index.html``.
        """
        directory = Path(directory)
        if directory.is_symlink():
            raise ValueError(f"directory: {directory} is a symbolic link; give the folder itself")
        if directory.exists() and not directory.is_dir():
            raise ValueError(f"directory: {directory} exists and is not a directory")
        directory.parent.mkdir(parents=True, exist_ok=True)
        # A fresh folder of a name nobody can predict (a predictable one, removed and
        # made again, could be planted as a symbolic link between the two), given the
        # permissions any folder made here gets (mkdtemp's are private, 0700), since it
        # becomes the report folder.
        staging = Path(tempfile.mkdtemp(prefix=".zoo-partial-", dir=directory.parent))
        staging.chmod(0o777 & ~current_umask())
        try:
            for section in self.sections:
                for image in section.images:
                    (staging / image.filename).write_bytes(image.png)
            (staging / "index.html").write_text(self.html(), encoding="utf-8")
            if not directory.exists():
                staging.rename(directory)  # fails if a link was planted there meanwhile
                return directory / "index.html"
            _move_into(staging, directory)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return directory / "index.html"

    def html(self) -> str:
        """The page as a string (figures referenced by file name)."""
        esc = html.escape
        parts = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{esc(self.title)}</title>",
            f"<style>{_CSS}</style></head><body>",
            f"<h1>{esc(self.title)}</h1>",
        ]
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        parts.append(f'<p class="meta">written {stamp} by bayes-zoo</p>')
        parts += [f"<p>{esc(p)}</p>" for p in self.intro]
        if len(self.sections) > 1:
            # Two columns only when the list is long enough to need them.
            toc = "toc many" if len(self.sections) > 6 else "toc"
            parts.append(f'<nav><ul class="{toc}">')
            for s in self.sections:
                parts.append(
                    f'<li><a href="#{s.anchor}">{esc(s.title)}</a>{_badge(s.status)}</li>'
                )
            parts.append("</ul></nav>")
        for s in self.sections:
            parts.append(f'<section id="{s.anchor}">')
            parts.append(f"<h2>{esc(s.title)}{_badge(s.status)}</h2>")
            parts += [f"<p>{esc(p)}</p>" for p in s.paragraphs]
            parts += [_table_html(t) for t in s.tables]
            for image in s.images:
                parts.append(
                    f'<figure><img src="{esc(image.filename)}" width="{image.width}" '
                    f'height="{image.height}" alt="{esc(image.caption or image.filename)}">'
                    f"<figcaption>{esc(image.caption)}</figcaption></figure>"
                )
            parts.append("</section>")
        parts.append("</body></html>")
        return "\n".join(parts)

    def _unique(self, stem: str, kind: str) -> str:
        taken = self._names[kind]
        name, k = stem, 1
        while name in taken:
            k += 1
            name = f"{stem}-{k}"
        taken.add(name)
        return name

    def _render(self, item: ReportFigure) -> _Image:
        # deferred: matplotlib is slow to import; only figures need it
        import matplotlib.pyplot as plt

        figure = item.figure
        if not hasattr(figure, "savefig"):
            raise ValueError(f"figures: expected a matplotlib Figure, got {type(figure).__name__}")
        buffer = io.BytesIO()
        # No bbox_inches="tight": the PNG then has exactly figsize * DPI pixels.
        figure.savefig(buffer, format="png", dpi=DPI)
        width, height = (round(v * DPI) for v in figure.get_size_inches())
        plt.close(figure)
        filename = self._unique(_slug(item.name), "file") + ".png"
        return _Image(filename, buffer.getvalue(), width, height, item.caption)


def _paragraphs(text) -> list[str]:
    if text is None:
        return []
    if isinstance(text, str):
        chunks = re.split(r"\n\s*\n", text)
    else:
        chunks = [str(t) for t in text]
    return [" ".join(c.split()) for c in chunks if c.strip()]


def _badge(status: str | None) -> str:
    if status is None:
        return ""
    return f' <span class="badge {_CLASS[status]}">{status}</span>'


def _cell(value) -> str:
    if isinstance(value, float):
        text = f"{value:.4g}"
    else:
        text = str(value)
    first, _, rest = text.partition(" ")
    if first in VERDICTS:
        return f'<span class="v {_CLASS[first]}">{first}</span>' + (
            " " + html.escape(rest) if rest else ""
        )
    return html.escape(text)


# A number as the report writes one: 12, -1.5, 2.3e-05, 1.2k, 45%, inf, nan, or an
# estimate with its error "0.0639 ± 0.001".
_NUMBER = r"[+-]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[kMG%]?|[+-]?inf(?:inite)?|nan"
_NUMERIC = re.compile(rf"(?:{_NUMBER})(?:\s*±\s*(?:{_NUMBER}))?", re.IGNORECASE)
# Cells that stand for a missing number: "-", "", "(no mean)".
_PLACEHOLDER = re.compile(r"|[-–—]|\(.*\)")


def _is_number(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return _NUMERIC.fullmatch(str(value).strip()) is not None


def numeric_columns(table: Table) -> list[bool]:
    """Which columns hold numbers: right-aligned, so digits line up; text is left-aligned.

    A column is numeric when at least one cell is a number (``12``, ``-1.5``,
    ``2.3e-05``, ``0.0639 ± 0.001``, ``inf``) and every other cell stands for a missing
    one (empty, ``-``, or a parenthesised note such as ``(no mean)``). Anything else,
    verdicts and sentences among them, is text, read from the left.
    """
    flags = []
    for k in range(len(table.columns)):
        cells = [row[k] for row in table.rows]
        numbers = [_is_number(c) for c in cells]
        flags.append(
            any(numbers)
            and all(
                n or _PLACEHOLDER.fullmatch(str(c).strip()) is not None
                for n, c in zip(numbers, cells, strict=True)
            )
        )
    return flags


def _table_html(table: Table) -> str:
    numeric = numeric_columns(table)
    align = ["" if not n else ' class="num"' for n in numeric]
    head = "".join(
        f"<th{a}>{html.escape(str(c))}</th>" for a, c in zip(align, table.columns, strict=True)
    )
    body = []
    for i, row in enumerate(table.rows):
        status = table.status[i] if table.status is not None else None
        css = ""
        if status in VERDICTS and _CLASS[status] != "agree":
            css = f' class="row-{_CLASS[status]}"'
        cells = "".join(f"<td{a}>{_cell(v)}</td>" for a, v in zip(align, row, strict=True))
        body.append(f"<tr{css}>{cells}</tr>")
    caption = f"<caption>{html.escape(table.caption)}</caption>" if table.caption else ""
    markup = (
        f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )
    if table.collapsed:
        summary = html.escape(table.caption or "table")
        return f"<details><summary>{summary}</summary>{markup}</details>"
    return markup


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1200px;padding:0 1em;color:#222;line-height:1.4}
h1{margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
.meta{color:#777;font-size:.9em}
table{border-collapse:collapse;margin:1em 0;font-size:.85em}
caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
thead th{background:#f3f3f3}
tr.row-disagree td{background:#fde2e2}tr.row-inconclusive td{background:#fff6d6}
.v{font-weight:600}.v.agree{color:#1a7f37}.v.disagree{color:#c62828}.v.inconclusive{color:#a66b00}
.badge{font-size:.6em;vertical-align:middle;padding:.15em .5em;border-radius:.8em;color:#fff}
.badge.agree{background:#1a7f37}.badge.disagree{background:#c62828}
.badge.inconclusive{background:#c98a00}.badge.unjudged{background:#6e7781}
tr.row-unjudged td{background:#f0f1f3}
figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{color:#555;font-size:.9em}
details summary{cursor:pointer;margin:.5em 0}
ul.toc.many{columns:2}
"""


def _move_into(staging: Path, directory: Path) -> None:
    """Move the files of ``staging`` into the existing folder ``directory``, index.html last.

    Through a descriptor of the folder opened without following a link: a folder
    swapped for a symbolic link after it was checked (someone else's folder, a planted
    ``rep -> ~/www``) is refused instead of receiving the files.
    """
    try:
        folder = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise ValueError(
                f"directory: {directory} is a symbolic link; give the folder itself"
            ) from None
        raise
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink("index.html", dir_fd=folder)
        for path in sorted(staging.iterdir(), key=lambda p: p.name == "index.html"):
            os.replace(path, path.name, dst_dir_fd=folder)
    finally:
        os.close(folder)
