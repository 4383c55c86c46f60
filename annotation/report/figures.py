"""The report's figures, drawn on the server as SVG from the report's numbers: a scatter of the
human mean against the LLM's score per dimension (jittered, so that equal scores do not hide one
another), a heatmap of α by dimension and system, and the distribution of human and LLM scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from django.utils.translation import gettext as _

from annotation.report.items import Histogram, ScatterSeries, scale_points
from annotation.report.names import dimension_names, system_label
from annotation.report.rows import ALPHA_HUMANS, ALPHA_LLM_VS_HUMANS, rated_blocks
from evalsite.charts import (
    ON_DARK,
    ON_LIGHT,
    Box,
    Figure,
    Frame,
    Line,
    Point,
    Text,
    abbreviated,
    contrast,
    on_fill,
    text_width,
)

# Half the width of the jitter, in scale points: wide enough to separate equal scores, narrow
# enough that a point never looks like a neighbouring value.
JITTER = 0.15


def scatter_figure(
    spec: dict[str, Any], scatter: ScatterSeries, evaluator: str, seed: int, position: int
) -> Figure:
    """Human mean (x) against the LLM's score (y) for each item, with the diagonal y = x."""
    low, high = spec["scale"]
    area = Frame(36, 12, 196, 196, low - 0.5, high + 0.5)
    shown, total = len(scatter.points), scatter.total
    description = _(
        "%(shown)d of %(total)d items; each point is one item, the dashed line marks equal scores."
    ) % {"shown": shown, "total": total}
    figure = Figure(
        dom_id=f"scatter-{spec['key']}",
        kind="scatter",
        title=_("%(dimension)s: human mean against %(evaluator)s")
        % {"dimension": spec.get("name", spec["key"]), "evaluator": evaluator},
        description=description,
        width=240,
        height=248,
    )
    for value in scale_points(spec):
        figure.lines.append(Line(area.x(value), area.top, area.x(value), area.top + area.height))
        figure.lines.append(Line(area.left, area.y(value), area.left + area.width, area.y(value)))
        figure.texts.append(Text(area.x(value), area.top + area.height + 14, f"{value}"))
        figure.texts.append(Text(area.left - 6, area.y(value) + 4, f"{value}", anchor="end"))
    figure.lines.append(Line(area.x(low), area.y(low), area.x(high), area.y(high), css="diagonal"))
    figure.texts.append(Text(area.left + area.width / 2, 246, _("human mean")))
    figure.texts.append(Text(10, area.top + area.height / 2, evaluator, vertical=True))
    jitter = np.random.default_rng([seed, position]).uniform(-JITTER, JITTER, size=(shown, 2))
    for (_item, mean, llm), (dx, dy) in zip(scatter.points, jitter, strict=True):
        figure.points.append(Point(area.x(mean + dx), area.y(llm + dy)))
    return figure


# A column label longer than this (in pixels) is cut, its full text kept in its tooltip.
LONGEST_LABEL = 140


def alpha_colour(alpha: float | None) -> str:
    """White at α = 0, deepening to blue at 1 and to red below 0; empty (the theme's grey,
    drawn by the class ``empty``) when undefined.

    Between light and deep lies a band of colours on which neither dark nor white text reaches
    4.5:1; a value there is drawn a little deeper, at the first shade white text can be read on.
    """
    if alpha is None:
        return ""
    target = (37, 99, 235) if alpha >= 0 else (220, 38, 38)
    strength = min(1.0, abs(alpha))
    while True:
        red, green, blue = (round(255 + (part - 255) * strength) for part in target)
        colour = f"#{red:02x}{green:02x}{blue:02x}"
        if strength >= 1 or max(contrast(colour, ON_DARK), contrast(colour, ON_LIGHT)) >= 4.5:
            return colour
        strength = min(1.0, strength + 0.01)


def heatmap_figure(result: dict[str, Any], evaluation: dict[str, Any]) -> Figure | None:
    """α (of the LLM with each human, or among humans without an LLM) by dimension and system."""
    if "system" not in result["breakdowns"]:
        return None
    rows = rated_blocks(evaluation)
    names = dimension_names(result)
    systems = sorted({system for _name, block in rows for system in block.by.get("system", {})})
    if not systems:
        return None
    which = ALPHA_HUMANS if evaluation["evaluator"] is None else ALPHA_LLM_VS_HUMANS
    cell_width, cell_height = 76, 28
    left = 16 + round(max(text_width(names[key]) for key, _block in rows))
    # Column labels stand upright when any is wider than its column, so that none overlaps
    # its neighbour; a long one is cut, with its full text in its tooltip.
    labels = [system_label(system) for system in systems]
    shown_labels = [abbreviated(label, LONGEST_LABEL) for label in labels]
    upright = max(text_width(label) for label in shown_labels) > cell_width - 6
    top = 16 + round(max(text_width(label) for label in shown_labels)) if upright else 34
    figure = Figure(
        dom_id="heatmap",
        kind="heatmap",
        title=_("Krippendorff's α by dimension and system"),
        description=(
            _("α among people")
            if which == ALPHA_HUMANS
            else _("α of the LLM with each person, averaged")
        )
        + " · "
        + _("%(rows)d dimensions × %(columns)d systems; grey where α has no value.")
        % {"rows": len(rows), "columns": len(systems)},
        width=left + cell_width * len(systems) + 4,
        height=top + cell_height * len(rows) + 4,
    )
    for column, (label, shown_label) in enumerate(zip(labels, shown_labels, strict=True)):
        centre = left + cell_width * (column + 0.5)
        figure.texts.append(
            Text(
                centre + 4 if upright else centre,
                top - 6 if upright else top - 10,
                shown_label,
                anchor="start" if upright else "middle",
                vertical=upright,
                title=label if shown_label != label else "",
            )
        )
    for row, (key, block) in enumerate(rows):
        name = names[key]
        y = top + cell_height * row
        figure.texts.append(Text(left - 8, y + cell_height / 2 + 4, name, anchor="end"))
        groups = block.by.get("system", {})
        for column, system in enumerate(systems):
            group = groups.get(system)
            alpha = None if group is None else which.value(group)
            x = left + cell_width * column
            shown = "—" if alpha is None else f"{alpha:.2f}"
            figure.boxes.append(
                Box(
                    x,
                    y,
                    cell_width - 2,
                    cell_height - 2,
                    "cell" if alpha is not None else "cell empty",
                    alpha_colour(alpha),
                    f"{name} · {system_label(system)}: α = {shown}",
                )
            )
            figure.texts.append(
                Text(
                    x + cell_width / 2,
                    y + cell_height / 2 + 4,
                    shown,
                    css="" if alpha is None else "value " + on_fill(alpha_colour(alpha)),
                )
            )
    return figure


def _point_label(points: Sequence[int], index: int) -> str:
    """A pairwise scale's lowest value means response A and its highest response B."""
    if index == 0:
        return "A"
    return "B" if index == len(points) - 1 else str(points[index])


def histogram_figure(spec: dict[str, Any], histogram: Histogram, evaluator: str | None) -> Figure:
    """The share of human scores and of the LLM's scores at each point of the scale."""
    points = histogram.values
    human = histogram.human
    machine = histogram.llm.get(evaluator, []) if evaluator else []
    series = [("human", _("people"), human)]
    if machine:
        series.append(("llm", evaluator or "", machine))
    left, top, width, height = 36, 12, 196, 120
    group = width / len(points)
    bar = (group - 8) / len(series)
    pairwise = spec["kind"] == "pairwise"
    figure = Figure(
        dom_id=f"histogram-{spec['key']}",
        kind="histogram",
        title=_("%(dimension)s: distribution of scores")
        % {"dimension": spec.get("name", spec["key"])},
        description=_("Share of %(human)d human scores") % {"human": sum(human)}
        + (
            _(" and of %(llm)d scores of %(evaluator)s")
            % {"llm": sum(machine), "evaluator": evaluator}
            if machine
            else ""
        )
        + _(" at each point of the scale."),
        width=240,
        height=168,
    )
    figure.lines.append(Line(left, top + height, left + width, top + height, css="axis"))
    for share in (0.5, 1.0):
        y = round(top + height - share * height, 1)
        figure.lines.append(Line(left, y, left + width, y))
        figure.texts.append(Text(left - 4, y + 4, f"{share:.0%}", anchor="end"))
    for index, value in enumerate(points):
        label = _point_label(points, index) if pairwise else str(value)
        x0 = left + group * index + 4
        figure.texts.append(Text(left + group * (index + 0.5), top + height + 14, label))
        for offset, (css, name, counts) in enumerate(series):
            total = sum(counts) or 1
            share = counts[index] / total
            figure.boxes.append(
                Box(
                    round(x0 + bar * offset, 1),
                    round(top + height - share * height, 1),
                    round(bar - 1, 1),
                    round(share * height, 1),
                    f"bar {css}",
                    "",
                    f"{label}: {share:.0%} ({counts[index]}) · {name}",
                )
            )
    figure.texts.append(Text(left + width / 2, 164, " / ".join(name for _c, name, _n in series)))
    return figure
