"""Predictions set against the gold answers: every id once, every label known, nothing missing.

`align` turns a prediction file into class indices in the order of the gold utterances, or
raises `IntentFileError` naming the first problems: an id that repeats or is not in the gold
answers, a label the track does not know, ids left without a prediction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.utils.translation import gettext as _

from intent.files import FileProblem, IntentFileError, LabelledUtterance, Prediction
from intent.scoring import IntArray

# How many missing ids a problem quotes.
_QUOTED_MISSING = 5


@dataclass(frozen=True)
class Aligned:
    """Gold and predicted class indices of the same utterances; ``len(labels)`` is no answer."""

    labels: tuple[str, ...]
    ids: tuple[str, ...]
    gold: IntArray
    pred: IntArray


def gold_label_set(gold: Sequence[LabelledUtterance], order: Sequence[str]) -> tuple[str, ...]:
    """The labels that occur in ``gold``: those of ``order`` first, in its order, then the rest."""
    present = {utterance.label for utterance in gold}
    known = [label for label in order if label in present]
    rest = sorted(present - set(known))
    return (*known, *rest)


def gold_indices(gold: Sequence[LabelledUtterance], labels: Sequence[str]) -> IntArray:
    index = {label: i for i, label in enumerate(labels)}
    return np.array([index[utterance.label] for utterance in gold], dtype=np.int64)


def align(
    gold: Sequence[LabelledUtterance],
    labels: tuple[str, ...],
    predictions: Sequence[Prediction],
    source: str,
    *,
    also_known: Sequence[str] = (),
) -> Aligned:
    """Predictions in gold order; a label of ``also_known`` outside ``labels`` counts as wrong."""
    index = {label: i for i, label in enumerate(labels)}
    known = set(labels) | set(also_known)
    position = {utterance.id: i for i, utterance in enumerate(gold)}
    pred = np.full(len(gold), -1, dtype=np.int64)
    problems: list[FileProblem] = []
    seen: dict[str, int] = {}
    for prediction in predictions:
        if prediction.id in seen:
            message = _("%(id)s repeats line %(line)d") % {
                "id": prediction.id,
                "line": seen[prediction.id],
            }
            problems.append(FileProblem(source, prediction.line, "id", message))
        elif prediction.id not in position:
            message = _("%(id)s is not in the test set") % {"id": prediction.id}
            problems.append(FileProblem(source, prediction.line, "id", message))
        elif prediction.label not in known:
            message = _("%(label)s is not in the label set") % {"label": prediction.label}
            problems.append(FileProblem(source, prediction.line, "label", message))
        else:
            pred[position[prediction.id]] = index.get(prediction.label, len(labels))
        seen.setdefault(prediction.id, prediction.line)
    missing = [gold[int(i)].id for i in np.flatnonzero(pred < 0)] if not problems else []
    if missing:
        message = _("%(count)d ids have no prediction, such as %(ids)s") % {
            "count": len(missing),
            "ids": ", ".join(missing[:_QUOTED_MISSING]),
        }
        problems.append(FileProblem(source, None, "id", message))
    if problems:
        raise IntentFileError(problems[:20], len(problems))
    return Aligned(labels, tuple(u.id for u in gold), gold_indices(gold, labels), pred)
