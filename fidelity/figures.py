"""A task's main measure per group, with its CI, beside the paper's figures as reference lines.

One row per group (people first): the value as a point and its CI as a bar. Each figure the
paper reported for that measure is a dashed vertical line, labelled with who it was.
"""

from __future__ import annotations

from evalsite.agreement.phrases import shown
from evalsite.charts import Figure, Frame, Line, Point, Text
from fidelity.references import Reference
from fidelity.report import GroupRow

WIDTH = 560
LEFT = 150
RIGHT = 32
ROW = 26
TOP = 20


def measure_figure(
    dom_id: str,
    title: str,
    measure: str,
    rows: tuple[GroupRow, ...],
    references: tuple[Reference, ...],
    people_label: str,
) -> Figure | None:
    """The figure of ``measure``, or None when no group has a value for it."""
    cells = [(row.group, row.cell(measure)) for row in rows]
    valued = [(group, cell) for group, cell in cells if cell.value is not None]
    lines = [ref for ref in references if ref.measure == measure]
    if not valued:
        return None
    values = [cell.value for _, cell in valued if cell.value is not None]
    values += [bound for _, cell in valued if cell.ci is not None for bound in cell.ci]
    values += [ref.value for ref in lines]
    low, high = min(values), max(values)
    pad = (high - low) * 0.08 or 0.5
    height = TOP + ROW * len(cells) + 16 * len(lines) + 24
    frame = Frame(LEFT, TOP, WIDTH - LEFT - RIGHT, ROW * len(cells), low - pad, high + pad)
    figure = Figure(dom_id, "fidelity", title, title, WIDTH, height)
    bottom = TOP + ROW * len(cells)
    figure.lines.append(Line(LEFT, bottom, WIDTH - RIGHT, bottom, "axis"))
    for tick in (frame.low, (frame.low + frame.high) / 2, frame.high):
        figure.texts.append(Text(frame.x(tick), bottom + 14, f"{tick:.2f}"))
    for index, (group, cell) in enumerate(cells):
        y = TOP + ROW * index + ROW / 2
        name = people_label if index == 0 else group
        figure.texts.append(Text(LEFT - 8, y + 4, name[:22], anchor="end"))
        if cell.ci is not None:
            figure.lines.append(Line(frame.x(cell.ci[0]), y, frame.x(cell.ci[1]), y, "ci"))
        if cell.value is not None:
            figure.points.append(Point(frame.x(cell.value), y))
    for index, ref in enumerate(lines):
        x = frame.x(ref.value)
        figure.lines.append(Line(x, TOP - 4, x, bottom, "reference"))
        figure.texts.append(Text(x, TOP - 6, str(index + 1), css="muted"))
        label = f"{index + 1}: {shown(ref.group)} {ref.value:g} ({shown(ref.source)})"
        figure.texts.append(
            Text(LEFT, bottom + 30 + 16 * index, label, anchor="start", css="muted")
        )
    return figure
