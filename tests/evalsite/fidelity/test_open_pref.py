"""Open preference: aspect count and the entropies of aspects and sentiments."""

from __future__ import annotations

import math

import pytest

from evalsite.fidelity.open_pref import AspectLabel, open_pref


def test_aspect_and_sentiment_entropy_by_hand() -> None:
    # Aspects plot 2, cast 1, music 1: 1.5 bits. Sentiments positive 3, negative 1:
    # -(0.75 log2 0.75 + 0.25 log2 0.25) = 0.8113 bits.
    labels = [
        AspectLabel("r1", "plot", "positive"),
        AspectLabel("r1", "Plot ", "negative"),
        AspectLabel("r2", "cast", "positive"),
        AspectLabel("r3", "music", "positive"),
    ]
    measures = open_pref(labels, resamples=0)
    assert measures.n_aspects == 3
    assert measures.n_labels == 4
    assert measures.aspect_entropy.value == pytest.approx(1.5)
    expected = -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    assert measures.sentiment_entropy.value == pytest.approx(expected)


def test_no_labels_give_null_with_a_note() -> None:
    measures = open_pref([])
    assert measures.aspect_entropy.value is None
    assert measures.as_json()["notes"] == ["there are no responders"]


def test_the_chao_shen_entropies_come_with_a_jackknife_interval() -> None:
    # The same counts as by hand above: aspects 2, 1, 1 give 2.5438 Chao–Shen bits
    # (tests/evalsite/fidelity/test_entropy.py). Twelve responders give an interval.
    labels = [
        AspectLabel("r1", "plot", "positive"),
        AspectLabel("r1", "Plot ", "negative"),
        AspectLabel("r2", "cast", "positive"),
        AspectLabel("r3", "music", "positive"),
    ]
    assert open_pref(labels, resamples=0).aspect_entropy_cs.value == pytest.approx(2.5438, abs=1e-4)
    many = [AspectLabel(f"r{i}", ("plot", "cast", "music")[i % 3], "positive") for i in range(12)]
    measures = open_pref(many)
    assert measures.aspect_entropy.ci is None
    assert measures.aspect_entropy_cs.ci is not None
    low, high = measures.aspect_entropy_cs.ci
    assert low <= measures.aspect_entropy_cs.value <= high  # type: ignore[operator]
    assert measures.as_json()["sentiment_entropy_cs"] == 0.0
