"""The LLM evaluator's answer: per dimension, a rationale and then a score within its scale."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.models import Dimension


@dataclass(frozen=True)
class Verdict:
    """The evaluator's judgement on one dimension: the reasoning, then the score."""

    rationale: str
    score: int


def verdict_reader(dimensions: Sequence[Dimension]) -> Callable[[Any], dict[str, Verdict]]:
    """A validator for ``complete_json``: every dimension, a rationale, a score in its scale."""

    def read(value: Any) -> dict[str, Verdict]:
        if not isinstance(value, dict):
            raise ValueError("the answer must be a JSON object keyed by dimension")
        missing = [dimension.key for dimension in dimensions if dimension.key not in value]
        if missing:
            raise ValueError(f"there is no verdict for {', '.join(missing)}")
        verdicts: dict[str, Verdict] = {}
        for dimension in dimensions:
            entry = value[dimension.key]
            if not isinstance(entry, dict):
                raise ValueError(f"{dimension.key} must be an object with a rationale and a score")
            rationale = entry.get("rationale")
            if not isinstance(rationale, str) or not rationale.strip():
                raise ValueError(f"{dimension.key} needs a rationale")
            score = entry.get("score")
            if isinstance(score, float) and score.is_integer():
                score = int(score)
            if (
                isinstance(score, bool)
                or not isinstance(score, int)
                or not dimension.in_scale(score)
            ):
                raise ValueError(
                    f"the score of {dimension.key} must be a whole number from "
                    f"{dimension.scale_min} to {dimension.scale_max}, not {score!r}"
                )
            verdicts[dimension.key] = Verdict(rationale.strip(), score)
        return verdicts

    return read
