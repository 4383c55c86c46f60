"""Time the intent scores of 100,000 utterances × 31 classes with 1,000 bootstrap resamples.

The same run times the baseline: one scikit-learn-style pass (confusion matrix, macro precision,
recall and F1 with scikit-learn's own functions) on the same arrays, and also a textbook
bootstrap that redraws utterance indices and rescores with scikit-learn, on a few resamples,
scaled to 1,000. Predictions are synthetic (seeded); nothing touches a database.
Run from the repository root: ``python bench/intent_score.py``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from sklearn import metrics

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from intent.bootstrap import official_f_interval, paired_test
from intent.labels import SMP_LABELS
from intent.scoring import score

UTTERANCES = 100_000
RESAMPLES = 1000
TEXTBOOK_RESAMPLES = 20
SEED = 11
T = TypeVar("T")


def synthetic(accuracy: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    generator = np.random.default_rng(seed)
    # chat is about a fifth of the utterances, as in SMP2018.
    weights = np.full(len(SMP_LABELS), 0.8 / (len(SMP_LABELS) - 1))
    weights[SMP_LABELS.index("chat")] = 0.2
    gold = generator.choice(len(SMP_LABELS), size=UTTERANCES, p=weights)
    noise = generator.integers(0, len(SMP_LABELS), UTTERANCES)
    return gold, np.where(generator.random(UTTERANCES) < accuracy, gold, noise)


def sklearn_pass(gold: np.ndarray, pred: np.ndarray) -> float:
    labels = list(range(len(SMP_LABELS)))
    metrics.confusion_matrix(gold, pred, labels=labels)
    p, r, _, _ = metrics.precision_recall_fscore_support(
        gold, pred, labels=labels, average="macro", zero_division=0
    )
    metrics.f1_score(gold, pred, labels=labels, average="macro", zero_division=0)
    return float(2 * p * r / (p + r))


def timed(function: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, float]:
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def main() -> None:
    gold, pred = synthetic(0.85, SEED)
    _, other = synthetic(0.84, SEED + 1)
    k = len(SMP_LABELS)
    reference, sklearn_seconds = timed(sklearn_pass, gold, pred)
    scores, score_seconds = timed(score, SMP_LABELS, gold, pred)
    assert abs(scores.official_f - reference) < 1e-12
    interval, ci_seconds = timed(official_f_interval, gold, pred, k, resamples=RESAMPLES)
    test, paired_seconds = timed(paired_test, gold, pred, other, k, resamples=RESAMPLES)
    generator = np.random.default_rng(SEED)
    start = time.perf_counter()
    for _ in range(TEXTBOOK_RESAMPLES):
        drawn = generator.integers(0, UTTERANCES, UTTERANCES)
        sklearn_pass(gold[drawn], pred[drawn])
    textbook_seconds = (time.perf_counter() - start) * RESAMPLES / TEXTBOOK_RESAMPLES
    print(f"{UTTERANCES:,} utterances × {k} classes, {RESAMPLES:,} resamples")
    print(f"scikit-learn single pass        {sklearn_seconds * 1000:8.1f} ms")
    print(f"scores (one pass)               {score_seconds * 1000:8.1f} ms")
    print(f"official F CI ({RESAMPLES} resamples)   {ci_seconds * 1000:8.1f} ms  {interval}")
    print(
        f"paired test ({RESAMPLES} resamples)     {paired_seconds * 1000:8.1f} ms  p={test.p_value}"
    )
    print(f"textbook bootstrap, scaled      {textbook_seconds * 1000:8.1f} ms")
    print(
        json.dumps(
            {
                "utterances": UTTERANCES,
                "classes": k,
                "resamples": RESAMPLES,
                "sklearn_pass_ms": round(sklearn_seconds * 1000, 1),
                "score_ms": round(score_seconds * 1000, 1),
                "ci_ms": round(ci_seconds * 1000, 1),
                "paired_ms": round(paired_seconds * 1000, 1),
                "textbook_bootstrap_ms": round(textbook_seconds * 1000, 1),
                "ci_vs_sklearn_pass": round(ci_seconds / sklearn_seconds, 2),
                "textbook_vs_ci": round(textbook_seconds / ci_seconds, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
