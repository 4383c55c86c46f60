"""Items talk: how diverse the items a group chooses to talk about are, as entropy in bits.

From each responder's mentions the items of that responder's own prompt are removed (a
simulator that repeats its prompt is not choosing); repeats are kept. ``entropy_bits`` is the
plug-in Shannon entropy, base 2, of the remaining mentions pooled over the group's responders,
as in the paper (9.71–12.61 bits for people, about 4 for gpt-3.5 given only a name); it has no
interval. ``entropy_cs_bits`` is the Chao–Shen entropy of the same mentions, which corrects the
plug-in's downward bias on a large catalogue; its interval comes from the delete-one-responder
jackknife (`evalsite.fidelity.common.entropy_measures`). ``at_count`` gives a group's Chao–Shen
entropy at another group's number of answers, over seeded subsamples of its answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evalsite.agreement.phrases import Phrase, gettext_noop
from evalsite.fidelity.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    EQUAL_COUNT_REPEATS,
    RESPONDERS,
    AtCount,
    FloatArray,
    Measured,
    entropy_at_count,
    entropy_measures,
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
    entropy_cs: Measured
    n_mentions: int
    n_distinct: int
    n_responders: int
    # Answers × items: each answer's kept mentions, for `at_count`.
    answer_counts: FloatArray = field(default_factory=lambda: np.zeros((0, 0)), compare=False)

    @property
    def n_answers(self) -> int:
        return int(self.answer_counts.shape[0])

    def at_count(
        self, count: int, *, repeats: int = EQUAL_COUNT_REPEATS, seed: int = DEFAULT_SEED
    ) -> AtCount | None:
        """The Chao–Shen entropy of ``count`` of this group's answers (see `entropy_at_count`)."""
        return entropy_at_count(self.answer_counts, count, repeats=repeats, seed=seed)

    def as_json(self) -> dict[str, object]:
        entropy_cs = self.entropy_cs
        return {
            "entropy_bits": self.entropy.value,
            "entropy_cs_bits": entropy_cs.value,
            "entropy_cs_ci": None if entropy_cs.ci is None else list(entropy_cs.ci),
            "n_mentions": self.n_mentions,
            "n_distinct": self.n_distinct,
            "n_responders": self.n_responders,
            "notes": list(dict.fromkeys([*self.entropy.notes, *entropy_cs.notes])),
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
    """Plug-in and Chao–Shen entropy in bits of one group's mentions, the latter with a CI
    over its responders.

    Several answers of one responder are one unit of the jackknife; ``resamples=0`` turns the
    interval off. ``seed`` is unused (the jackknife draws nothing); it is kept so that every
    measure is called alike.
    """
    by_responder: dict[str, list[str]] = {}
    kept = [kept_mentions(answer) for answer in answers]
    for answer, mentions in zip(answers, kept, strict=True):
        by_responder.setdefault(answer.responder, []).extend(mentions)
    items = sorted({item for mentions in kept for item in mentions})
    column = {item: index for index, item in enumerate(items)}
    counts = np.zeros((len(by_responder), len(items)))
    for row, mentions in enumerate(by_responder.values()):
        for item in mentions:
            counts[row, column[item]] += 1
    answer_counts = np.zeros((len(kept), len(items)))
    for row, mentions in enumerate(kept):
        for item in mentions:
            answer_counts[row, column[item]] += 1
    entropy, entropy_cs = entropy_measures(
        counts,
        unit=RESPONDERS,
        resamples=resamples,
        undefined=Phrase(gettext_noop("no item is mentioned once the prompt's items are removed")),
    )
    return ItemsTalkMeasures(
        entropy=entropy,
        entropy_cs=entropy_cs,
        n_mentions=int(counts.sum()),
        n_distinct=len(items),
        n_responders=len(by_responder),
        answer_counts=answer_counts,
    )
