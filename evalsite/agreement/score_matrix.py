"""The scores of one dimension as the alt-test and the LLM-vs-human α read them.

A `ScoreMatrix` holds items × humans (NaN where a human did not score an item) and the LLM's
score per item. `score_matrix` builds one from long (item, rater, score) rows. Text labels are
nominal categories, held as category codes; only the `accuracy` alignment of the alt-test and
nominal α accept them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from evalsite.agreement.common import FloatArray, InputError

Score = float | str | None


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """Every score of one dimension: items × humans (NaN = not scored) and the LLM's per item.

    When ``categories`` is set the scores are nominal text labels and each number is a code:
    code k stands for ``categories[k]``.
    """

    items: tuple[str, ...]
    humans: tuple[str, ...]
    human_scores: FloatArray
    llm_scores: FloatArray
    categories: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.human_scores.shape != (len(self.items), len(self.humans)):
            raise ValueError("human_scores must be items × humans")
        if self.llm_scores.shape != (len(self.items),):
            raise ValueError("llm_scores must hold one score per item")


def _is_missing(score: Score) -> bool:
    if score is None:
        return True
    if isinstance(score, str):
        return score.strip() == ""
    return math.isnan(score)


def score_matrix(rows: Iterable[tuple[str, str, Score]], *, llm: str) -> ScoreMatrix:
    """The `ScoreMatrix` of long (item, rater, score) rows; rater ``llm`` is the LLM.

    A missing score is None, NaN or an empty string. If any score is text, every score is a
    nominal label (its text, as ``str`` gives it) and every distinct label is a category;
    otherwise scores are numbers. Items and humans keep the order in which they first appear.
    The LLM may have scored nothing (its scores are then all NaN). Raises `InputError` for a
    rater who scored an item twice or an infinite score.
    """
    kept: dict[tuple[str, str], Score] = {}
    for item, rater, score in rows:
        if (item, rater) in kept:
            raise InputError(f"rater {rater} scored item {item} more than once")
        kept[(item, rater)] = score
    items = tuple(dict.fromkeys(item for item, _ in kept))
    humans = tuple(dict.fromkeys(rater for _, rater in kept if rater != llm))
    present = {key: score for key, score in kept.items() if not _is_missing(score)}
    categories: tuple[str, ...] | None = None
    values: dict[tuple[str, str], float] = {}
    if any(isinstance(score, str) for score in present.values()):
        categories = tuple(sorted({str(score) for score in present.values()}))
        code = {label: float(index) for index, label in enumerate(categories)}
        values = {key: code[str(score)] for key, score in present.items()}
    else:
        for (item, rater), score in present.items():
            number = float(score) if score is not None else math.nan
            if not math.isfinite(number):
                raise InputError(f"rater {rater} gave item {item} the score {score}")
            values[(item, rater)] = number
    item_index = {item: row for row, item in enumerate(items)}
    human_index = {human: column for column, human in enumerate(humans)}
    human_scores = np.full((len(items), len(humans)), np.nan)
    llm_scores = np.full(len(items), np.nan)
    for (item, rater), value in values.items():
        if rater == llm:
            llm_scores[item_index[item]] = value
        else:
            human_scores[item_index[item], human_index[rater]] = value
    return ScoreMatrix(items, humans, human_scores, llm_scores, categories)
