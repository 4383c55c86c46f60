"""One submission's scores as the documented JSON and as a plain-text table.

The JSON shape is that of ``manage.py intent_score --format json``::

    {"n", "accuracy", "macro_precision", "macro_recall", "official_f", "macro_f1",
     "official_f_ci": [low, high], "per_class": {LABEL: {"precision", "recall", "f1", "support"}},
     "confusion": {"labels": [...], "matrix": [[...]], "outside_gold_set": [...]}}

``outside_gold_set[g]`` counts the utterances of gold class ``g`` predicted as a label outside
the gold set (or not answered), so each matrix row plus it sums to the class's support.
"""

from __future__ import annotations

from typing import Any

from intent.scoring import IntentScores


def as_json(scores: IntentScores, interval: tuple[float, float] | None) -> dict[str, Any]:
    return {
        "n": scores.n,
        "accuracy": scores.accuracy,
        "macro_precision": scores.macro_precision,
        "macro_recall": scores.macro_recall,
        "official_f": scores.official_f,
        "macro_f1": scores.macro_f1,
        "official_f_ci": list(interval) if interval is not None else None,
        "per_class": {
            row.label: {
                "precision": row.precision,
                "recall": row.recall,
                "f1": row.f1,
                "support": row.support,
            }
            for row in scores.per_class
        },
        "confusion": {
            "labels": list(scores.labels),
            "matrix": [list(row) for row in scores.confusion],
            "outside_gold_set": list(scores.unanswered),
        },
    }


def as_table(scores: IntentScores, interval: tuple[float, float] | None) -> str:
    ci = f"  95% CI [{interval[0]:.4f}, {interval[1]:.4f}]" if interval is not None else ""
    width = max(len("label"), *(len(label) for label in scores.labels))
    lines = [
        f"utterances       {scores.n}",
        f"official F       {scores.official_f:.4f}{ci}",
        f"macro-F1         {scores.macro_f1:.4f}",
        f"macro precision  {scores.macro_precision:.4f}",
        f"macro recall     {scores.macro_recall:.4f}",
        f"accuracy         {scores.accuracy:.4f}",
        "",
        f"{'label':<{width}}  precision  recall      f1  support",
    ]
    lines += [
        f"{row.label:<{width}}  {row.precision:9.4f}  {row.recall:6.4f}  {row.f1:6.4f}"
        f"  {row.support:7d}"
        for row in scores.per_class
    ]
    return "\n".join(lines)
