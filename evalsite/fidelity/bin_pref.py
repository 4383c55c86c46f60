"""Binary preference: does a group's yes-rate for an item follow the item's average rating?

Each responder answers "would you watch X?" (yes or no) for items whose average rating is
known. Per item the group's yes-rate is its share of yes answers; the measure is Pearson r
between the items' average ratings and these yes-rates, over items, with a CI that resamples
items. A constant yes-rate (every answer yes, say) or constant ratings leave r undefined: it is
null with a note, never 0. ``yes_rate`` is the group's share of yes answers over all answers.
The paper splits items by how often they were rated (frequent: at least 5000 ratings;
infrequent: at most 500); `by_frequency` does the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from evalsite.agreement.common import MIN_ITEMS_FOR_CORRELATION
from evalsite.agreement.phrases import Phrase, gettext_noop
from evalsite.fidelity.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ITEMS,
    FloatArray,
    Measured,
    measured,
    ratio,
)

# The paper's frequency buckets, by the item's number of ratings.
FREQUENT_AT_LEAST = 5000
INFREQUENT_AT_MOST = 500
# Relative spread below which ratings or yes-rates count as constant.
_CONSTANT = 1e-9


@dataclass(frozen=True)
class BinPrefAnswer:
    """One yes/no answer of one responder about one item of known average rating."""

    item: str
    avg_rating: float
    responder: str
    yes: bool


@dataclass(frozen=True)
class BinPrefMeasures:
    pearson: Measured
    pearson_p: float | None
    yes_rate: Measured
    n_items: int
    n_answers: int

    def as_json(self) -> dict[str, object]:
        return {
            "pearson_r": self.pearson.value,
            "pearson_ci": None if self.pearson.ci is None else list(self.pearson.ci),
            "pearson_p": self.pearson_p,
            "yes_rate": self.yes_rate.value,
            "yes_rate_ci": None if self.yes_rate.ci is None else list(self.yes_rate.ci),
            "n_items": self.n_items,
            "n_answers": self.n_answers,
            "notes": [*self.pearson.notes, *self.yes_rate.notes],
        }


def weighted_pearson(weights: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
    """Pearson r of x and y under each row of item weights; NaN where either is constant."""
    totals = weights.sum(axis=1, keepdims=True)
    dx = x[None, :] - (weights @ x)[:, None] / totals
    dy = y[None, :] - (weights @ y)[:, None] / totals
    covariance = (weights * dx * dy).sum(axis=1)
    spread_x = np.sqrt((weights * dx * dx).sum(axis=1) / totals[:, 0])
    spread_y = np.sqrt((weights * dy * dy).sum(axis=1) / totals[:, 0])
    # A spread within rounding of the values' size is a constant.
    varies = (spread_x > _CONSTANT * max(1.0, float(np.abs(x).max()))) & (
        spread_y > _CONSTANT * max(1.0, float(np.abs(y).max()))
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        r = covariance / (spread_x * spread_y * totals[:, 0])
        result: FloatArray = np.where(varies, r, np.nan)
    return np.clip(result, -1.0, 1.0)


def _constant(values: FloatArray) -> bool:
    return float(np.ptp(values)) <= _CONSTANT * max(1.0, float(np.abs(values).max()))


def _why_no_correlation(ratings: FloatArray, yes_rates: FloatArray) -> str:
    if len(ratings) < MIN_ITEMS_FOR_CORRELATION:
        return Phrase(
            gettext_noop("only %(n)d item(s); Pearson r needs at least %(minimum)d"),
            n=len(ratings),
            minimum=MIN_ITEMS_FOR_CORRELATION,
        )
    if _constant(yes_rates):
        return Phrase(
            gettext_noop("every item has the same yes-rate (%(rate)s), so Pearson r is undefined"),
            rate=f"{yes_rates[0]:.3g}",
        )
    if _constant(ratings):
        return Phrase(
            gettext_noop("every item has the same average rating, so Pearson r is undefined")
        )
    return Phrase(gettext_noop("Pearson r is undefined on these data"))


def bin_pref(
    answers: Sequence[BinPrefAnswer],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> BinPrefMeasures:
    """Pearson r of average rating and yes-rate over one group's items, CIs over items."""
    ratings_of: dict[str, float] = {}
    yes: dict[str, int] = {}
    asked: dict[str, int] = {}
    for answer in answers:
        ratings_of.setdefault(answer.item, answer.avg_rating)
        yes[answer.item] = yes.get(answer.item, 0) + int(answer.yes)
        asked[answer.item] = asked.get(answer.item, 0) + 1
    items = list(ratings_of)
    ratings = np.array([ratings_of[item] for item in items], dtype=np.float64)
    yes_counts = np.array([yes[item] for item in items], dtype=np.float64)
    asked_counts = np.array([asked[item] for item in items], dtype=np.float64)
    yes_rates = yes_counts / asked_counts if items else np.zeros(0)

    def correlation(weights: FloatArray) -> FloatArray:
        if len(items) < MIN_ITEMS_FOR_CORRELATION:
            return np.full(len(weights), np.nan)
        return weighted_pearson(weights, ratings, yes_rates)

    def share_of_yes(weights: FloatArray) -> FloatArray:
        return ratio(weights @ yes_counts, weights @ asked_counts)

    pearson = measured(
        correlation,
        len(items),
        unit=ITEMS,
        resamples=resamples,
        seed=seed,
        undefined=_why_no_correlation(ratings, yes_rates) if items else "",
    )
    p_value = None
    if pearson.value is not None:
        p_value = float(stats.pearsonr(ratings, yes_rates).pvalue)
    return BinPrefMeasures(
        pearson=pearson,
        pearson_p=p_value,
        yes_rate=measured(share_of_yes, len(items), unit=ITEMS, resamples=resamples, seed=seed),
        n_items=len(items),
        n_answers=len(answers),
    )


def frequency_bucket(
    n_ratings: int,
    *,
    frequent_at_least: int = FREQUENT_AT_LEAST,
    infrequent_at_most: int = INFREQUENT_AT_MOST,
) -> str | None:
    """ "frequent", "infrequent", or None for an item between the two buckets."""
    if n_ratings >= frequent_at_least:
        return "frequent"
    if n_ratings <= infrequent_at_most:
        return "infrequent"
    return None


def by_frequency(
    answers: Sequence[BinPrefAnswer],
    n_ratings: Mapping[str, int],
    *,
    frequent_at_least: int = FREQUENT_AT_LEAST,
    infrequent_at_most: int = INFREQUENT_AT_MOST,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, BinPrefMeasures]:
    """`bin_pref` within each frequency bucket; items of unknown count or in between are left
    out."""
    buckets: dict[str, list[BinPrefAnswer]] = {"frequent": [], "infrequent": []}
    for answer in answers:
        count = n_ratings.get(answer.item)
        bucket = (
            None
            if count is None
            else frequency_bucket(
                count, frequent_at_least=frequent_at_least, infrequent_at_most=infrequent_at_most
            )
        )
        if bucket is not None:
            buckets[bucket].append(answer)
    return {
        name: bin_pref(bucket_answers, resamples=resamples, seed=seed)
        for name, bucket_answers in buckets.items()
    }
