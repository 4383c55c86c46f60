"""The official intent-classification scores of one submission (pure, numpy).

The label set is the gold label set: ``labels[i]`` is class ``i``. A prediction is a class index,
or ``len(labels)`` for "no answer" (an endpoint that did not answer, a label outside the gold set):
such an utterance is wrong for its gold class and counts towards no class's precision.

- per-class precision = tp / predicted, and 0 for a class that is never predicted;
- per-class recall = tp / support; per-class F1 = 2PR / (P + R), 0 when P + R = 0;
- macro precision and macro recall average the per-class values over the classes with gold
  support (a class of the label set absent from the gold answers has no recall to average);
- the **official F** = 2 · P̄ · R̄ / (P̄ + R̄) of those two averages (SMP2018 ECDT Task 1), which is
  not macro-F1, the mean of the per-class F1 (scikit-learn's ``f1_score(average="macro")``).

Everything is computed from the counts of (gold, predicted) cells, so one function scores a single
confusion matrix and a block of bootstrap resamples alike (`scores_from_cells`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ClassScore:
    label: str
    precision: float
    recall: float
    f1: float
    support: int
    predicted: int


@dataclass(frozen=True)
class IntentScores:
    """One submission's scores; ``confusion[g][p]`` counts gold ``g`` predicted as ``p``.

    ``unanswered[g]`` counts utterances of gold class ``g`` that got no (valid) answer.
    """

    labels: tuple[str, ...]
    n: int
    accuracy: float
    macro_precision: float
    macro_recall: float
    official_f: float
    macro_f1: float
    per_class: tuple[ClassScore, ...]
    confusion: tuple[tuple[int, ...], ...]
    unanswered: tuple[int, ...]


@dataclass(frozen=True)
class CellScores:
    """The summary scores of many confusion matrices at once, one value per row."""

    accuracy: FloatArray
    macro_precision: FloatArray
    macro_recall: FloatArray
    official_f: FloatArray
    macro_f1: FloatArray


def _ratio(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    """numerator / denominator, and 0 where the denominator is 0."""
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def harmonic(precision: FloatArray, recall: FloatArray) -> FloatArray:
    """2PR / (P + R), and 0 where P + R = 0."""
    return _ratio(2 * precision * recall, precision + recall)


def per_class_counts(
    cells: FloatArray, gold_of_cell: IntArray, pred_of_cell: IntArray, n_labels: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """True positives, supports and predicted counts per class, for each row of ``cells``.

    ``cells`` is rows × cells of counts; cell ``j`` holds gold ``gold_of_cell[j]`` predicted as
    ``pred_of_cell[j]`` (``n_labels`` for no answer).
    """
    gold_onehot = np.zeros((len(gold_of_cell), n_labels))
    gold_onehot[np.arange(len(gold_of_cell)), gold_of_cell] = 1.0
    pred_onehot = np.zeros((len(pred_of_cell), n_labels + 1))
    pred_onehot[np.arange(len(pred_of_cell)), pred_of_cell] = 1.0
    correct = gold_onehot * pred_onehot[:, :n_labels]
    return cells @ correct, cells @ gold_onehot, cells @ pred_onehot[:, :n_labels]


def scores_from_cells(
    cells: FloatArray, gold_of_cell: IntArray, pred_of_cell: IntArray, n_labels: int
) -> CellScores:
    """The summary scores of each row of ``cells`` (see `per_class_counts`).

    Classes are averaged where the row has gold support, so each resample averages over the
    gold classes it holds.
    """
    tp, support, predicted = per_class_counts(cells, gold_of_cell, pred_of_cell, n_labels)
    precision = _ratio(tp, predicted)
    recall = _ratio(tp, support)
    f1 = harmonic(precision, recall)
    present = support > 0
    classes = present.sum(axis=1).astype(np.float64)
    macro_p = _ratio((precision * present).sum(axis=1), classes)
    macro_r = _ratio((recall * present).sum(axis=1), classes)
    return CellScores(
        accuracy=_ratio(tp.sum(axis=1), support.sum(axis=1)),
        macro_precision=macro_p,
        macro_recall=macro_r,
        official_f=harmonic(macro_p, macro_r),
        macro_f1=_ratio((f1 * present).sum(axis=1), classes),
    )


def cell_codes(gold: IntArray, pred: IntArray, n_labels: int) -> IntArray:
    """One code per utterance for its (gold, predicted) cell: gold · (n_labels + 1) + pred."""
    if len(gold) != len(pred):
        raise ValueError("gold and predicted labels differ in length")
    if len(gold) and (gold.min() < 0 or gold.max() >= n_labels):
        raise ValueError("a gold label is outside the label set")
    if len(pred) and (pred.min() < 0 or pred.max() > n_labels):
        raise ValueError("a predicted label is outside the label set")
    return np.asarray(gold, dtype=np.int64) * (n_labels + 1) + np.asarray(pred, dtype=np.int64)


def score(labels: Sequence[str], gold: IntArray, pred: IntArray) -> IntentScores:
    """The scores of predictions ``pred`` against ``gold`` (class indices into ``labels``)."""
    k = len(labels)
    if not len(gold):
        raise ValueError("there are no utterances to score")
    codes = cell_codes(gold, pred, k)
    matrix = np.bincount(codes, minlength=k * (k + 1)).reshape(k, k + 1)
    flat = matrix.reshape(1, -1).astype(np.float64)
    cell_gold = np.repeat(np.arange(k, dtype=np.int64), k + 1)
    cell_pred = np.tile(np.arange(k + 1, dtype=np.int64), k)
    summary = scores_from_cells(flat, cell_gold, cell_pred, k)
    tp, support, predicted = per_class_counts(flat, cell_gold, cell_pred, k)
    precision = _ratio(tp, predicted)[0]
    recall = _ratio(tp, support)[0]
    f1 = harmonic(precision, recall)
    per_class = tuple(
        ClassScore(
            label=label,
            precision=float(precision[i]),
            recall=float(recall[i]),
            f1=float(f1[i]),
            support=int(support[0, i]),
            predicted=int(predicted[0, i]),
        )
        for i, label in enumerate(labels)
    )
    return IntentScores(
        labels=tuple(labels),
        n=len(gold),
        accuracy=float(summary.accuracy[0]),
        macro_precision=float(summary.macro_precision[0]),
        macro_recall=float(summary.macro_recall[0]),
        official_f=float(summary.official_f[0]),
        macro_f1=float(summary.macro_f1[0]),
        per_class=per_class,
        confusion=tuple(tuple(int(x) for x in row[:k]) for row in matrix),
        unanswered=tuple(int(x) for x in matrix[:, k]),
    )
