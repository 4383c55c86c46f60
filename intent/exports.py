"""A submission's scores as CSV and as a workbook with the confusion matrix as a native chart.

The per-class columns are named once here (`PER_CLASS_HEADER`), for both files. Only
coordinators get the per-class breakdown (``breakdown=True``): for a team, the files hold the
figures of the whole part, as the submission page does, since per-class counts of a crafted
file reveal gold labels.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence

from django.utils.translation import gettext as _

from evalsite.spreadsheets import About, BarChartSpec, CellValue, Sheet, write_csv, write_workbook
from intent.scoring import IntentScores

PER_CLASS_HEADER = ("label", "precision", "recall", "f1", "support", "predicted")
SUMMARY_HEADER = ("measure", "value")


def per_class_rows(scores: IntentScores) -> Iterator[Sequence[CellValue]]:
    for row in scores.per_class:
        yield (row.label, row.precision, row.recall, row.f1, row.support, row.predicted)


def summary_rows(
    scores: IntentScores, interval: tuple[float, float] | None
) -> list[Sequence[CellValue]]:
    rows: list[Sequence[CellValue]] = [
        ("utterances", scores.n),
        ("official_f", scores.official_f),
        ("macro_f1", scores.macro_f1),
        ("macro_precision", scores.macro_precision),
        ("macro_recall", scores.macro_recall),
        ("accuracy", scores.accuracy),
    ]
    if interval is not None:
        rows += [("official_f_ci_low", interval[0]), ("official_f_ci_high", interval[1])]
    return rows


def confusion_header(scores: IntentScores) -> tuple[str, ...]:
    return ("gold", *scores.labels, "unanswered")


def confusion_rows(scores: IntentScores) -> Iterator[Sequence[CellValue]]:
    for label, row, missing in zip(scores.labels, scores.confusion, scores.unanswered, strict=True):
        yield (label, *row, missing)


def scores_csv(
    scores: IntentScores, interval: tuple[float, float] | None, *, breakdown: bool
) -> str:
    stream = io.StringIO()
    if breakdown:
        write_csv(stream, PER_CLASS_HEADER, per_class_rows(scores))
    else:
        write_csv(stream, SUMMARY_HEADER, summary_rows(scores, interval))
    return stream.getvalue()


def scores_workbook(
    scores: IntentScores,
    interval: tuple[float, float] | None,
    *,
    breakdown: bool,
    about: About | None = None,
) -> bytes:
    """The scores as a workbook; sheet names are stable (they are data), the chart's words are
    in the reader's language."""
    chart = BarChartSpec(
        title=_("Confusion matrix: each gold class by predicted class"),
        categories="gold",
        values=scores.labels,
        y_title=_("utterances"),
        stacked=True,
    )
    sheets = [Sheet("Summary", SUMMARY_HEADER, summary_rows(scores, interval))]
    if breakdown:
        predicted = {
            label: _("Utterances of the gold class predicted as %(label)s") % {"label": label}
            for label in scores.labels
        }
        sheets += [
            Sheet("Per class", PER_CLASS_HEADER, per_class_rows(scores)),
            Sheet(
                "Confusion",
                confusion_header(scores),
                confusion_rows(scores),
                [chart],
                glossary=predicted,
            ),
        ]
    target = io.BytesIO()
    write_workbook(target, sheets, about)
    return target.getvalue()
