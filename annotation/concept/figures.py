"""The scorecard page's server-side chart: the six ability scores (0–5) per system as bars,
laid out in SVG units for the inline ``<svg>`` of ``annotation/concept/scorecard.html``.

Only geometry lives here: the page passes each bar's value, label, text and note in, and the
template draws what ``ability_chart`` returns. The picture scales with the page through its
viewBox.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalsite.charts import Frame

# One colour per ability, the same in the chart and its legend; dark enough for white text.
ABILITY_COLOURS = {
    "quality": "#2563eb",
    "sincerity": "#0891b2",
    "identity": "#7c3aed",
    "cooperation": "#059669",
    "social_awareness": "#d97706",
    "coordination": "#db2777",
}
SCALE_TOP = 5.0
PLOT_HEIGHT = 160
PLOT_TOP = 12
AXIS_LEFT = 30
BAR_WIDTH = 14
BAR_GAP = 2
GROUP_GAP = 28
LABEL_SPACE = 34
# The plotting area's vertical scale, shared with every server-side chart (its x is unused).
SCALE = Frame(left=AXIS_LEFT, top=PLOT_TOP, width=0, height=PLOT_HEIGHT, low=0.0, high=SCALE_TOP)


@dataclass(frozen=True)
class BarValue:
    """What one bar shows: an ability's score, its label, the score as text, and a note."""

    ability: str
    label: str
    value: float | None
    text: str
    note: str


@dataclass(frozen=True)
class ChartSystem:
    """One system's bars, and the page its bars and label link to."""

    system: str
    url: str
    values: Sequence[BarValue]


@dataclass(frozen=True)
class Bar:
    ability: str
    label: str
    colour: str
    x: float
    centre: float
    y: float
    height: float
    text: str
    note: str


@dataclass(frozen=True)
class BarGroup:
    system: str
    url: str
    label_x: float
    bars: list[Bar]


@dataclass(frozen=True)
class Tick:
    value: int
    y: float


@dataclass(frozen=True)
class LegendEntry:
    label: str
    colour: str


@dataclass(frozen=True)
class AbilityChart:
    groups: list[BarGroup]
    ticks: list[Tick]
    legend: list[LegendEntry]
    width: float
    height: int = PLOT_TOP + PLOT_HEIGHT + LABEL_SPACE
    baseline: int = PLOT_TOP + PLOT_HEIGHT
    mark_y: int = PLOT_TOP + PLOT_HEIGHT - 3
    tick_x: int = AXIS_LEFT - 6
    label_y: int = PLOT_TOP + PLOT_HEIGHT + 18
    axis_x: int = AXIS_LEFT
    bar_width: int = BAR_WIDTH


def _bar(shown: BarValue, x: float) -> Bar:
    value = shown.value
    top = SCALE.y(0.0 if value is None else min(max(float(value), 0.0), SCALE_TOP))
    return Bar(
        ability=shown.ability,
        label=shown.label,
        colour=ABILITY_COLOURS[shown.ability],
        x=round(x, 1),
        centre=round(x + BAR_WIDTH / 2, 1),
        y=top,
        height=round(PLOT_TOP + PLOT_HEIGHT - top, 1),
        text=shown.text,
        note=shown.note,
    )


def ability_chart(
    systems: Sequence[ChartSystem], abilities: Sequence[tuple[str, str]]
) -> AbilityChart:
    """Bars of the ``abilities`` ((ability, label) pairs) per system, side by side."""
    group_width = len(abilities) * (BAR_WIDTH + BAR_GAP) - BAR_GAP
    groups = []
    for index, system in enumerate(systems):
        left = AXIS_LEFT + GROUP_GAP / 2 + index * (group_width + GROUP_GAP)
        bars = [
            _bar(shown, left + position * (BAR_WIDTH + BAR_GAP))
            for position, shown in enumerate(system.values)
        ]
        groups.append(BarGroup(system.system, system.url, round(left + group_width / 2, 1), bars))
    ticks = [Tick(value, SCALE.y(value)) for value in range(int(SCALE_TOP) + 1)]
    return AbilityChart(
        groups=groups,
        ticks=ticks,
        legend=[LegendEntry(label, ABILITY_COLOURS[ability]) for ability, label in abilities],
        width=AXIS_LEFT + len(groups) * (group_width + GROUP_GAP) + BAR_GAP,
    )
