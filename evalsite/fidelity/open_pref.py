"""Open preference: which aspects of an item a group writes about, and with which sentiment.

Each answer is a short review whose aspects (plot, cast, music, ...) are labelled, each with
a sentiment, by people in the workspace or by the LLM evaluator. ``n_aspects`` counts the
distinct aspects; ``aspect_entropy`` and ``sentiment_entropy`` are the plug-in Shannon
entropies in bits of the labelled aspects and of their sentiments. The paper reports 85
aspects, 5.85 and 1.19 bits for people; gpt-3.5 given a name, 71, 4.86 and 0.29. The plug-in
entropies have no interval; ``aspect_entropy_cs`` and ``sentiment_entropy_cs`` are the
Chao–Shen entropies of the same labels, with a jackknife CI over responders
(`evalsite.fidelity.common.entropy_measures`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evalsite.agreement.phrases import Phrase, gettext_noop
from evalsite.fidelity.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    RESPONDERS,
    FloatArray,
    Measured,
    entropy_measures,
)


@dataclass(frozen=True)
class AspectLabel:
    """One aspect found in one responder's answer, with its sentiment."""

    responder: str
    aspect: str
    sentiment: str


@dataclass(frozen=True)
class OpenPrefMeasures:
    n_aspects: int
    n_labels: int
    aspect_entropy: Measured
    sentiment_entropy: Measured
    aspect_entropy_cs: Measured
    sentiment_entropy_cs: Measured

    def as_json(self) -> dict[str, object]:
        aspect, sentiment = self.aspect_entropy_cs, self.sentiment_entropy_cs
        return {
            "n_aspects": self.n_aspects,
            "n_labels": self.n_labels,
            "aspect_entropy": self.aspect_entropy.value,
            "aspect_entropy_cs": aspect.value,
            "aspect_entropy_cs_ci": None if aspect.ci is None else list(aspect.ci),
            "sentiment_entropy": self.sentiment_entropy.value,
            "sentiment_entropy_cs": sentiment.value,
            "sentiment_entropy_cs_ci": None if sentiment.ci is None else list(sentiment.ci),
            "notes": list(
                dict.fromkeys(
                    [
                        *self.aspect_entropy.notes,
                        *aspect.notes,
                        *self.sentiment_entropy.notes,
                        *sentiment.notes,
                    ]
                )
            ),
        }


def _counts(rows: Sequence[str], values: Sequence[str]) -> FloatArray:
    row_of = {row: index for index, row in enumerate(dict.fromkeys(rows))}
    column_of = {value: index for index, value in enumerate(sorted(set(values)))}
    counts = np.zeros((len(row_of), len(column_of)))
    for row, value in zip(rows, values, strict=True):
        counts[row_of[row], column_of[value]] += 1
    return counts


def open_pref(
    labels: Sequence[AspectLabel],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> OpenPrefMeasures:
    """Aspect count and the entropies of aspects and sentiments of one group's labels.

    ``seed`` is unused (the jackknife draws nothing); it is kept so that every measure is
    called alike.
    """
    responders = [label.responder for label in labels]
    aspects = _counts(responders, [label.aspect.strip().lower() for label in labels])
    sentiments = _counts(responders, [label.sentiment.strip().lower() for label in labels])

    def entropies_of(counts: FloatArray) -> tuple[Measured, Measured]:
        return entropy_measures(
            counts,
            unit=RESPONDERS,
            resamples=resamples,
            undefined=Phrase(gettext_noop("no aspect is labelled")),
        )

    aspect_entropy, aspect_entropy_cs = entropies_of(aspects)
    sentiment_entropy, sentiment_entropy_cs = entropies_of(sentiments)
    return OpenPrefMeasures(
        n_aspects=aspects.shape[1],
        n_labels=len(labels),
        aspect_entropy=aspect_entropy,
        sentiment_entropy=sentiment_entropy,
        aspect_entropy_cs=aspect_entropy_cs,
        sentiment_entropy_cs=sentiment_entropy_cs,
    )
