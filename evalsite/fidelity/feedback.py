"""Feedback: does a group accept what answers its request and reject what does not?

Accept/reject: each responder sees a recommendation that is either the real answer to the
request (positive) or the answer to another request (negative). ``accept_rate_positive`` is
the share of positives accepted, ``reject_rate_negative`` the share of negatives rejected, and
``coherence`` the share of all judgements that are one or the other.

Comparison: each responder sees the positive and the negative in random order and picks one,
or neither. As in the paper, ``share_positive`` and ``position_bias`` (the share choosing the
one shown first) leave out "neither", whose share is ``share_neither``.

Every CI resamples responders: one responder's judgements are not independent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from evalsite.agreement.phrases import Phrase, gettext_noop
from evalsite.fidelity.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    RESPONDERS,
    FloatArray,
    Measured,
    measured,
    ratio,
)

Choice = Literal["positive", "negative", "neither"]


@dataclass(frozen=True)
class AcceptRejectAnswer:
    responder: str
    pair: str
    positive: bool
    accepted: bool


@dataclass(frozen=True)
class ComparisonAnswer:
    responder: str
    pair: str
    choice: Choice
    positive_first: bool


def _listed(measure: Measured) -> list[float] | None:
    return None if measure.ci is None else list(measure.ci)


@dataclass(frozen=True)
class FeedbackMeasures:
    coherence: Measured
    accept_rate_positive: Measured
    reject_rate_negative: Measured
    n_responders: int
    n_judgements: int

    def as_json(self) -> dict[str, object]:
        return {
            "coherence": self.coherence.value,
            "coherence_ci": _listed(self.coherence),
            "accept_rate_positive": self.accept_rate_positive.value,
            "accept_rate_positive_ci": _listed(self.accept_rate_positive),
            "reject_rate_negative": self.reject_rate_negative.value,
            "reject_rate_negative_ci": _listed(self.reject_rate_negative),
            "n_responders": self.n_responders,
            "n_judgements": self.n_judgements,
            "notes": list(
                dict.fromkeys(
                    [
                        *self.coherence.notes,
                        *self.accept_rate_positive.notes,
                        *self.reject_rate_negative.notes,
                    ]
                )
            ),
        }


@dataclass(frozen=True)
class ComparisonMeasures:
    share_positive: Measured
    share_neither: Measured
    position_bias: Measured
    n_responders: int
    n_comparisons: int

    def as_json(self) -> dict[str, object]:
        return {
            "share_positive": self.share_positive.value,
            "share_positive_ci": _listed(self.share_positive),
            "share_neither": self.share_neither.value,
            "share_neither_ci": _listed(self.share_neither),
            "position_bias": self.position_bias.value,
            "position_bias_ci": _listed(self.position_bias),
            "n_responders": self.n_responders,
            "n_comparisons": self.n_comparisons,
            "notes": list(
                dict.fromkeys(
                    [
                        *self.share_positive.notes,
                        *self.share_neither.notes,
                        *self.position_bias.notes,
                    ]
                )
            ),
        }


def _tallies(responders: Sequence[str], flags: Sequence[Sequence[bool]]) -> FloatArray:
    """Per responder (rows), how many of its answers hold each flag (columns)."""
    row_of = {responder: row for row, responder in enumerate(dict.fromkeys(responders))}
    tallies = np.zeros((len(row_of), len(flags[0]) if flags else 0))
    for responder, answer_flags in zip(responders, flags, strict=True):
        tallies[row_of[responder]] += np.array(answer_flags, dtype=np.float64)
    return tallies


def _share(
    tallies: FloatArray, numerator: int, denominator: int, undefined: str, resamples: int, seed: int
) -> Measured:
    def statistic(weights: FloatArray) -> FloatArray:
        totals = weights @ tallies
        return ratio(totals[:, numerator], totals[:, denominator])

    return measured(
        statistic,
        len(tallies),
        unit=RESPONDERS,
        resamples=resamples,
        seed=seed,
        undefined=undefined,
    )


def feedback(
    answers: Sequence[AcceptRejectAnswer],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> FeedbackMeasures:
    """Coherence of one group's accept/reject answers, with CIs over responders."""
    # Columns: judgements, coherent, positives, positives accepted, negatives, negatives rejected.
    tallies = _tallies(
        [answer.responder for answer in answers],
        [
            (
                True,
                answer.positive == answer.accepted,
                answer.positive,
                answer.positive and answer.accepted,
                not answer.positive,
                not answer.positive and not answer.accepted,
            )
            for answer in answers
        ],
    )
    return FeedbackMeasures(
        coherence=_share(
            tallies, 1, 0, Phrase(gettext_noop("there are no judgements")), resamples, seed
        ),
        accept_rate_positive=_share(
            tallies,
            3,
            2,
            Phrase(gettext_noop("no positive recommendation was judged")),
            resamples,
            seed,
        ),
        reject_rate_negative=_share(
            tallies,
            5,
            4,
            Phrase(gettext_noop("no negative recommendation was judged")),
            resamples,
            seed,
        ),
        n_responders=len(tallies),
        n_judgements=len(answers),
    )


def comparison(
    answers: Sequence[ComparisonAnswer],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ComparisonMeasures:
    """Share choosing the positive, share choosing neither, and position bias; CIs over
    responders."""
    # Columns: comparisons, a choice made, the positive chosen, neither, the first shown chosen.
    tallies = _tallies(
        [answer.responder for answer in answers],
        [
            (
                True,
                answer.choice != "neither",
                answer.choice == "positive",
                answer.choice == "neither",
                answer.choice != "neither"
                and (answer.choice == "positive") == answer.positive_first,
            )
            for answer in answers
        ],
    )
    only_neither = Phrase(gettext_noop('every answer is "neither"'))
    return ComparisonMeasures(
        share_positive=_share(tallies, 2, 1, only_neither, resamples, seed),
        share_neither=_share(
            tallies, 3, 0, Phrase(gettext_noop("there are no comparisons")), resamples, seed
        ),
        position_bias=_share(tallies, 4, 1, only_neither, resamples, seed),
        n_responders=len(tallies),
        n_comparisons=len(answers),
    )
