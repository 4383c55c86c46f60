"""Binary preference: Pearson r of average rating and yes-rate over items."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsite.fidelity.bin_pref import (
    BinPrefAnswer,
    bin_pref,
    by_frequency,
    frequency_bucket,
    weighted_pearson,
)


def answers_for(ratings: dict[str, float], yes: dict[str, list[bool]]) -> list[BinPrefAnswer]:
    return [
        BinPrefAnswer(item, ratings[item], f"r{index}", answer)
        for item, answers in yes.items()
        for index, answer in enumerate(answers)
    ]


def test_pearson_r_by_hand() -> None:
    # Ratings 1, 2, 3 and yes-rates 0, 1, 0.5: dx = -1, 0, 1; dy = -0.5, 0.5, 0;
    # r = 0.5 / sqrt(2 * 0.5) = 0.5.
    measures = bin_pref(
        answers_for(
            {"a": 1.0, "b": 2.0, "c": 3.0},
            {"a": [False, False], "b": [True, True], "c": [True, False]},
        ),
        resamples=0,
    )
    assert measures.pearson.value == pytest.approx(0.5)
    assert measures.pearson_p == pytest.approx(stats.pearsonr([1, 2, 3], [0, 1, 0.5]).pvalue)
    assert measures.n_items == 3


def test_yes_rate_is_the_share_of_all_answers() -> None:
    # 2 of 2 yes for a, 1 of 4 for b: 3 / 6 = 0.5 (the mean of the items' rates would be 0.625).
    measures = bin_pref(
        answers_for({"a": 4.0, "b": 2.0}, {"a": [True, True], "b": [True, False, False, False]}),
        resamples=0,
    )
    assert measures.yes_rate.value == pytest.approx(0.5)
    assert measures.n_answers == 6


def test_a_constant_yes_rate_gives_null_with_a_note() -> None:
    measures = bin_pref(
        answers_for(
            {"a": 1.0, "b": 3.0, "c": 5.0},
            {"a": [True, True], "b": [True], "c": [True, True, True]},
        )
    )
    assert measures.pearson.value is None
    assert measures.pearson.ci is None
    assert measures.pearson_p is None
    assert "same yes-rate (1)" in measures.pearson.notes[0]
    assert measures.yes_rate.value == 1.0
    shown = measures.as_json()
    assert shown["pearson_r"] is None
    assert "same yes-rate" in str(shown["notes"])


def test_constant_ratings_give_null_with_a_note() -> None:
    measures = bin_pref(
        answers_for({"a": 3.0, "b": 3.0, "c": 3.0}, {"a": [True], "b": [False], "c": [True]})
    )
    assert measures.pearson.value is None
    assert "same average rating" in measures.pearson.notes[0]


def test_ratings_equal_but_for_rounding_count_as_constant() -> None:
    measures = bin_pref(
        answers_for({"a": 0.1 + 0.2, "b": 0.3, "c": 0.3}, {"a": [True], "b": [False], "c": [True]})
    )
    assert measures.pearson.value is None


def test_two_items_are_too_few_for_a_correlation() -> None:
    measures = bin_pref(answers_for({"a": 1.0, "b": 5.0}, {"a": [False], "b": [True]}))
    assert measures.pearson.value is None
    assert "only 2 item(s)" in measures.pearson.notes[0]


def test_weighted_pearson_matches_scipy_on_a_repeated_resample() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=8), rng.normal(size=8)
    weights = np.array([[2.0, 0, 1, 1, 0, 3, 1, 0]])
    repeated = np.repeat(np.arange(8), weights[0].astype(int))
    expected = stats.pearsonr(x[repeated], y[repeated]).statistic
    assert weighted_pearson(weights, x, y)[0] == pytest.approx(expected)


def test_the_interval_resamples_items_and_holds_the_value() -> None:
    ratings = {f"i{n}": 1.0 + n * 0.2 for n in range(20)}
    yes = {f"i{n}": [m < n % 7 + n // 4 for m in range(8)] for n in range(20)}
    measures = bin_pref(answers_for(ratings, yes), resamples=300, seed=2)
    assert measures.pearson.value is not None
    assert measures.pearson.ci is not None
    low, high = measures.pearson.ci
    assert -1 <= low < measures.pearson.value < high <= 1
    assert measures.yes_rate.ci is not None


def test_frequency_buckets_follow_the_paper() -> None:
    assert frequency_bucket(5000) == "frequent"
    assert frequency_bucket(500) == "infrequent"
    assert frequency_bucket(501) is None


def test_by_frequency_splits_the_items() -> None:
    # Frequent items follow their rating exactly; infrequent ones all get yes.
    answers = answers_for(
        {"f1": 1.0, "f2": 3.0, "f3": 5.0, "n1": 2.0, "n2": 4.0, "n3": 4.5, "mid": 3.0},
        {
            "f1": [False, False],
            "f2": [True, False],
            "f3": [True, True],
            "n1": [True],
            "n2": [True],
            "n3": [True],
            "mid": [False],
        },
    )
    counts = {"f1": 9000, "f2": 6000, "f3": 5000, "n1": 10, "n2": 500, "n3": 60, "mid": 900}
    split = by_frequency(answers, counts, resamples=0)
    assert split["frequent"].pearson.value == pytest.approx(1.0)
    assert split["frequent"].n_items == 3
    assert split["infrequent"].pearson.value is None
    assert split["infrequent"].n_items == 3


def test_the_notes_read_in_the_readers_language() -> None:
    """A constant gives null with a note, and a page in Chinese shows the note in Chinese."""
    from django.utils import translation

    from evalsite.agreement.phrases import shown

    constant = bin_pref(
        answers_for({"a": 3.0, "b": 3.0, "c": 3.0}, {"a": [True], "b": [False], "c": [True]})
    )
    few = bin_pref(answers_for({"a": 1.0, "b": 5.0}, {"a": [False], "b": [True]}))
    with translation.override("zh-hans"):
        assert shown(constant.pearson.notes[0]) == "每个条目的平均评分都相同，因此 Pearson r 无定义"
        # The unit resampled is a phrase too, inside the CI's note.
        assert shown(few.yes_rate.notes[0]) == "只有 2 个条目；自助法置信区间至少需要 10 个"
    with translation.override("en"):
        assert shown(few.yes_rate.notes[0]) == "only 2 items; a bootstrap CI needs at least 10"
