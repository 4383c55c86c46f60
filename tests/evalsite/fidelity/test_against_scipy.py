"""The fidelity measures against scipy on random data (property-based)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from evalsite.fidelity.bin_pref import BinPrefAnswer, bin_pref
from evalsite.fidelity.items_talk import ItemsTalkAnswer, items_talk

mentions = st.lists(
    st.lists(st.sampled_from("ABCDEFGH"), min_size=0, max_size=6), min_size=1, max_size=8
)


@settings(max_examples=60, deadline=None)
@given(mentions, st.lists(st.sampled_from("ABCDEFGH"), max_size=3))
def test_entropy_matches_scipy_after_removing_the_prompt(
    answers: list[list[str]], prompt: list[str]
) -> None:
    given_answers = [
        ItemsTalkAnswer(f"r{i}", tuple(items), tuple(prompt)) for i, items in enumerate(answers)
    ]
    kept = [item for items in answers for item in items if item not in prompt]
    measures = items_talk(given_answers, resamples=0)
    assert measures.n_mentions == len(kept)
    if not kept:
        assert measures.entropy.value is None
        return
    _, counts = np.unique(kept, return_counts=True)
    assert measures.entropy.value == pytest.approx(stats.entropy(counts, base=2), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(1, 5), st.integers(0, 6), st.integers(1, 6)),
        min_size=3,
        max_size=12,
    )
)
def test_pearson_matches_scipy(items: list[tuple[float, int, int]]) -> None:
    rows = [(rating, min(yes, asked), asked) for rating, yes, asked in items]
    ratings = np.array([rating for rating, _, _ in rows])
    rates = np.array([yes / asked for _, yes, asked in rows])
    answers = [
        BinPrefAnswer(f"i{n}", rating, f"r{k}", k < yes)
        for n, (rating, yes, asked) in enumerate(rows)
        for k in range(asked)
    ]
    measures = bin_pref(answers, resamples=0)
    if np.ptp(rates) == 0 or np.ptp(ratings) == 0:
        assert measures.pearson.value is None
        return
    assume(np.std(rates) > 1e-6 and np.std(ratings) > 1e-6)
    expected = stats.pearsonr(ratings, rates).statistic
    assert measures.pearson.value == pytest.approx(expected, abs=1e-9)
