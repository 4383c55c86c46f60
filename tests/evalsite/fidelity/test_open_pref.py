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
