"""Whether the text of a matplotlib figure is legible: no label overlaps another, none is cut.

Three rules, checked on the figure as the report draws it:

- no two texts overlap;
- no text runs into a panel it does not belong to (a tick label of one panel into the
  next, a title into the row above);
- every text is inside the figure.

The figure is drawn at the report's resolution by matplotlib's own Agg renderer, and
only the texts that renderer actually draws are judged: :class:`_RecordingRenderer`
notes each Text artist that reaches ``draw_text``, so hidden panels, tick labels
outside the view limits, empty strings and the spare tick objects matplotlib keeps for
reuse are left out without re-implementing matplotlib's visibility rules. Each text's
box is its ``get_window_extent(renderer)`` in that same draw.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.text import Text

__all__ = ["Drawn", "TextProblem", "assert_texts_legible", "draw", "text_problems"]

# The report renders every PNG at 100 dpi (zoo.reports.html.DPI); layout is
# checked at the same resolution, so a box here is a box in the PNG.
DPI = 100

# Boxes are in pixels. Two boxes that share less than this area are touching (glyph
# extents are rounded at their edges), not overlapping.
MIN_OVERLAP_PIXELS = 1.0


class _RecordingRenderer(RendererAgg):
    """Matplotlib's Agg renderer, noting every Text artist it is asked to draw."""

    def __init__(self, width, height, dpi):
        super().__init__(width, height, dpi)
        self.texts: list[Text] = []

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        # One call per line of a multi-line text; each artist is kept once.
        if mtext is not None and all(mtext is not t for t in self.texts):
            self.texts.append(mtext)
        return super().draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)


@dataclass(frozen=True)
class Drawn:
    """What one draw of a figure put where, in pixels from the lower left.

    Attributes
    ----------
    texts : list of (Text, Bbox)
        Every drawn text that is not blank, with its window extent.
    panels : list of (Axes, Bbox)
        Every drawn panel (visible, axis on) with its plotting area. An Axes turned off
        (``set_axis_off``: the unused cells of a grid) draws nothing, so a label over
        it hides nothing.
    width, height : float
        Size of the figure.
    """

    texts: list
    panels: list
    width: float
    height: float


def draw(figure, *, dpi: float = DPI) -> Drawn:
    """Draw ``figure`` at ``dpi`` (its layout engine runs) and say where its texts went.

    The figure's own dpi is restored afterwards; nothing else about it changes beyond
    what any draw does (a layout engine places the axes).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
    dpi : float
        Resolution of the draw (the report's, by default).

    Returns
    -------
    Drawn
    """
    original = figure.dpi
    figure.set_dpi(dpi)
    try:
        width, height = figure.get_size_inches() * dpi
        renderer = _RecordingRenderer(round(width), round(height), dpi)
        figure.draw(renderer)
        texts = [
            (text, text.get_window_extent(renderer))
            for text in renderer.texts
            if text.get_text().strip()
        ]
        panels = [
            (ax, ax.get_window_extent(renderer))
            for ax in figure.axes
            if ax.get_visible() and ax.axison
        ]
        return Drawn(texts, panels, float(width), float(height))
    finally:
        figure.set_dpi(original)


@dataclass(frozen=True)
class TextProblem:
    """A text over another text or another panel (``other``), or cut by the edge."""

    text: str
    other: str | None
    detail: str

    def __str__(self) -> str:
        if self.other is None:
            return f"{self.text} {self.detail}"
        return f"{self.text} overlaps {self.other} ({self.detail})"


def _roles(figure) -> dict[int, str]:
    """What each text of ``figure`` is, for messages: ``x tick label of panel 3``."""
    roles = {}
    for name in ("_suptitle", "_supxlabel", "_supylabel"):
        text = getattr(figure, name, None)
        if text is not None:
            roles[id(text)] = name.strip("_")
    for legend in figure.legends:
        roles[id(legend.get_title())] = "legend title"
        roles.update({id(t): "legend text" for t in legend.get_texts()})
    for k, ax in enumerate(figure.axes):
        panel = f"panel {k}"
        for title in (ax.title, ax._left_title, ax._right_title):
            roles[id(title)] = f"title of {panel}"
        for letter, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            roles[id(axis.label)] = f"{letter} label of {panel}"
            roles[id(axis.offsetText)] = f"{letter} offset text of {panel}"
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                for label in (tick.label1, tick.label2):
                    roles[id(label)] = f"{letter} tick label of {panel}"
        legend = ax.get_legend()
        if legend is not None:
            roles[id(legend.get_title())] = f"legend title of {panel}"
            roles.update({id(t): f"legend text of {panel}" for t in legend.get_texts()})
        roles.update({id(t): f"text in {panel}" for t in ax.texts})
    return roles


def _overlap(box_a, box_b) -> tuple[float, float] | None:
    dx = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
    dy = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
    if dx > 0 and dy > 0 and dx * dy >= MIN_OVERLAP_PIXELS:
        return dx, dy
    return None


def text_problems(figure, *, dpi: float = DPI) -> list[TextProblem]:
    """Texts over other texts or other panels, and texts not inside the figure.

    Every pair of drawn texts is checked, the tick labels of one axis among them:
    matplotlib places tick labels at the tick positions without checking their widths
    against each other (its locators choose how many ticks from the font size, not
    from the labels' widths), so two long labels of one axis run into each other as
    readily as a title into a panel, and exempting them would hide the defect this
    check is for (``b``'s six-digit tick labels). Boxes sharing less than
    ``MIN_OVERLAP_PIXELS`` square pixels touch; they do not overlap.

    A text that belongs to a panel (its title, axis and tick labels, annotations) may
    lie over that panel and no other; a text of the figure itself (suptitle, a figure
    legend) over none. Wide tick labels run into the neighbouring panel's plotting
    area where the neighbour has no text, so text against text alone would miss them.

    Boxes are the axis-aligned extents matplotlib reports, so a text rotated by other
    than a multiple of 90 degrees is judged by its envelope (conservative); the report
    figures rotate only y labels, by 90 degrees.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
    dpi : float
        Resolution of the draw (the report's, by default).

    Returns
    -------
    list of TextProblem
        Empty when every text is legible.
    """
    drawn = draw(figure, dpi=dpi)
    roles = _roles(figure)
    index = {id(ax): k for k, ax in enumerate(figure.axes)}

    def name(text):
        return f"{roles.get(id(text), 'text')} {text.get_text()!r}"

    problems = []
    for text, box in drawn.texts:
        # Half a pixel: extents are fractional, the PNG's edge is at a whole pixel.
        if (
            box.x0 < -0.5
            or box.y0 < -0.5
            or box.x1 > drawn.width + 0.5
            or box.y1 > drawn.height + 0.5
        ):
            problems.append(
                TextProblem(
                    name(text),
                    None,
                    f"leaves the {drawn.width:.0f} x {drawn.height:.0f} px figure (box x "
                    f"{box.x0:.0f}..{box.x1:.0f}, y {box.y0:.0f}..{box.y1:.0f})",
                )
            )
    for (a, box_a), (b, box_b) in itertools.combinations(drawn.texts, 2):
        overlap = _overlap(box_a, box_b)
        if overlap is not None:
            problems.append(TextProblem(name(a), name(b), "{:.0f} x {:.0f} px".format(*overlap)))
    for text, box in drawn.texts:
        for ax, panel in drawn.panels:
            overlap = None if text.axes is ax else _overlap(box, panel)
            if overlap is not None:
                problems.append(
                    TextProblem(
                        name(text),
                        f"the plotting area of panel {index[id(ax)]}",
                        "{:.0f} x {:.0f} px".format(*overlap),
                    )
                )
    return problems


def assert_texts_legible(figure, *, dpi: float = DPI) -> None:
    """Raise AssertionError listing every overlap and every text cut by the figure's edge."""
    problems = text_problems(figure, dpi=dpi)
    label = figure.get_label() or "figure"
    assert not problems, f"{label}: {len(problems)} text layout problem(s):\n" + "\n".join(
        f"  {p}" for p in problems
    )
