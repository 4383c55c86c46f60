"""Feedback: coherence of accept/reject answers, and the comparison's shares."""

from __future__ import annotations

import pytest

from evalsite.fidelity.feedback import (
    AcceptRejectAnswer,
    ComparisonAnswer,
    comparison,
    feedback,
)


def test_coherence_by_hand() -> None:
    # r1 accepts the positive and rejects the negative (2 coherent), r2 does the opposite
    # (0), r3 accepts both (1): coherence 3 / 6; positives accepted 2 / 3; negatives
    # rejected 1 / 3.
    answers = [
        AcceptRejectAnswer("r1", "p1", positive=True, accepted=True),
        AcceptRejectAnswer("r1", "p1", positive=False, accepted=False),
        AcceptRejectAnswer("r2", "p2", positive=True, accepted=False),
        AcceptRejectAnswer("r2", "p2", positive=False, accepted=True),
        AcceptRejectAnswer("r3", "p3", positive=True, accepted=True),
        AcceptRejectAnswer("r3", "p3", positive=False, accepted=True),
    ]
    measures = feedback(answers, resamples=0)
    assert measures.coherence.value == pytest.approx(0.5)
    assert measures.accept_rate_positive.value == pytest.approx(2 / 3)
    assert measures.reject_rate_negative.value == pytest.approx(1 / 3)
    assert (measures.n_responders, measures.n_judgements) == (3, 6)


def test_no_negatives_leaves_their_rate_null_with_a_note() -> None:
    measures = feedback([AcceptRejectAnswer("r1", "p1", positive=True, accepted=True)])
    assert measures.coherence.value == 1.0
    assert measures.reject_rate_negative.value is None
    assert "no negative" in str(measures.as_json()["notes"])


def test_the_interval_resamples_responders() -> None:
    # Half the responders are always coherent, half never: each judges 20 pairs. Resampling
    # the 400 judgements would give an interval about ±0.05 wide; resampling the 20
    # responders, about ±0.2.
    answers = [
        AcceptRejectAnswer(f"r{r}", f"p{p}", positive=p % 2 == 0, accepted=(p % 2 == 0) == (r < 10))
        for r in range(20)
        for p in range(20)
    ]
    measures = feedback(answers, resamples=400, seed=1)
    assert measures.coherence.value == pytest.approx(0.5)
    assert measures.coherence.ci is not None
    low, high = measures.coherence.ci
    assert low < 0.4 and high > 0.6


def test_comparison_shares_by_hand() -> None:
    # r1 picks the positive shown first; r2 the negative shown second; r3 neither; r4 the
    # positive shown second. Choices: 3, of which 2 positive and 1 first-shown.
    answers = [
        ComparisonAnswer("r1", "p1", "positive", positive_first=True),
        ComparisonAnswer("r2", "p2", "negative", positive_first=True),
        ComparisonAnswer("r3", "p3", "neither", positive_first=False),
        ComparisonAnswer("r4", "p4", "positive", positive_first=False),
    ]
    measures = comparison(answers, resamples=0)
    assert measures.share_positive.value == pytest.approx(2 / 3)
    assert measures.share_neither.value == pytest.approx(1 / 4)
    assert measures.position_bias.value == pytest.approx(1 / 3)


def test_only_neither_leaves_the_shares_null_with_a_note() -> None:
    measures = comparison([ComparisonAnswer("r1", "p1", "neither", positive_first=True)])
    assert measures.share_positive.value is None
    assert measures.position_bias.value is None
    assert measures.share_neither.value == 1.0
    assert 'every answer is "neither"' in measures.share_positive.notes[0]
