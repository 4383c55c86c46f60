"""The confusion matrix as an SVG heatmap: gold classes down, predicted classes across."""

from __future__ import annotations

from django.utils.translation import gettext as _

from evalsite.charts import Box, Figure, Text, abbreviated
from intent.scoring import IntentScores

CELL = 18
LABEL_WIDTH = 92
TOP = 96


def _fill(share: float) -> str:
    """White for none of a gold class's utterances, deep blue for all of them."""
    level = round(255 - 200 * share)
    return f"rgb({level},{min(255, level + 20)},255)"


def confusion_heatmap(scores: IntentScores) -> Figure:
    labels = scores.labels
    size = len(labels)
    figure = Figure(
        dom_id="confusion",
        kind="heatmap",
        title=_("Confusion matrix"),
        description=_(
            "Rows are the gold classes and columns the predicted ones; the shade is the share "
            "of the row's utterances."
        ),
        width=LABEL_WIDTH + CELL * size + 8,
        height=TOP + CELL * size + 8,
    )
    for i, label in enumerate(labels):
        y = TOP + i * CELL
        x = LABEL_WIDTH + i * CELL
        # A label longer than its margin is cut, with its full text in its tooltip.
        short = abbreviated(label, LABEL_WIDTH - 8)
        full = label if short != label else ""
        figure.texts.append(Text(LABEL_WIDTH - 4, y + CELL * 0.7, short, anchor="end", title=full))
        figure.texts.append(
            Text(x + CELL * 0.7, TOP - 4, short, anchor="start", vertical=True, title=full)
        )
    for g, row in enumerate(scores.confusion):
        support = max(1, scores.per_class[g].support)
        for p, count in enumerate(row):
            if not count:
                continue
            figure.boxes.append(
                Box(
                    LABEL_WIDTH + p * CELL,
                    TOP + g * CELL,
                    CELL - 1,
                    CELL - 1,
                    "cell",
                    _fill(count / support),
                    _("%(gold)s predicted as %(pred)s: %(count)d")
                    % {"gold": labels[g], "pred": labels[p], "count": count},
                )
            )
    return figure
