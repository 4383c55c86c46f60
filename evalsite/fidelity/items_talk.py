"""Items talk: how diverse the items a group chooses to talk about are, as entropy in bits.

From each responder's mentions the items of that responder's own prompt are removed (a
simulator that repeats its prompt is not choosing); repeats are kept. The group's entropy is
the plug-in Shannon entropy, base 2, of the remaining mentions pooled over its responders.
Its CI resamples responders; it is the basic bootstrap interval, because resampling
responders repeats some and drops others and so lowers the entropy of nearly every resample
(`evalsite.fidelity.common.IntervalKind`). The paper reports 9.71–12.61 bits for people and
about 4 for gpt-3.5 given only a name.
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
    entropy_bits,
    measured,
)


@dataclass(frozen=True)
class ItemsTalkAnswer:
    """One responder's answer: the items mentioned, and the items its prompt named."""

    responder: str
    mentions: tuple[str, ...]
    prompt_items: tuple[str, ...] = ()


@dataclass(frozen=True)
class ItemsTalkMeasures:
    entropy: Measured
    n_mentions: int
    n_distinct: int
    n_responders: int

    def as_json(self) -> dict[str, object]:
        return {
            "entropy_bits": self.entropy.value,
            "entropy_ci": None if self.entropy.ci is None else list(self.entropy.ci),
            "n_mentions": self.n_mentions,
            "n_distinct": self.n_distinct,
            "n_responders": self.n_responders,
            "notes": list(self.entropy.notes),
        }


def kept_mentions(answer: ItemsTalkAnswer) -> list[str]:
    """The answer's mentions without its prompt's items, repeats kept."""
    prompted = set(answer.prompt_items)
    return [item for item in answer.mentions if item not in prompted]


def items_talk(
    answers: Sequence[ItemsTalkAnswer],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ItemsTalkMeasures:
    """Entropy in bits of one group's mentions, with a CI over its responders.

    Several answers of one responder are one unit of the resampling.
    """
    by_responder: dict[str, list[str]] = {}
    for answer in answers:
        by_responder.setdefault(answer.responder, []).extend(kept_mentions(answer))
    items = sorted({item for mentions in by_responder.values() for item in mentions})
    column = {item: index for index, item in enumerate(items)}
    counts = np.zeros((len(by_responder), len(items)))
    for row, mentions in enumerate(by_responder.values()):
        for item in mentions:
            counts[row, column[item]] += 1

    def statistic(weights: FloatArray) -> FloatArray:
        return entropy_bits(weights @ counts)

    entropy = measured(
        statistic,
        len(by_responder),
        unit=RESPONDERS,
        resamples=resamples,
        seed=seed,
        interval="basic",
        undefined=Phrase(gettext_noop("no item is mentioned once the prompt's items are removed")),
    )
    return ItemsTalkMeasures(
        entropy=entropy,
        n_mentions=int(counts.sum()),
        n_distinct=len(items),
        n_responders=len(by_responder),
    )
