"""Recommendation requests: how varied a group's requests are, in words and in meaning.

``type_token_ratio`` is the mean over requests of each request's distinct words over its
words (lower-cased; each Chinese character is a word). The paper reports 0.65 for people
and 0.49–0.61 for the models. ``embedding_diversity`` is 1 − the mean cosine similarity of the
requests' embeddings to the group's centroid (Anderson et al., 2020): 0.391 for people and
0.288–0.300 for the models with sentence embeddings. CIs resample responders; a responder's
several requests move together.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

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

NO_EMBEDDINGS = Phrase(
    gettext_noop("no embeddings were given, so embedding diversity is not measured")
)
# A CJK character, or a run of other letters and digits.
_WORD = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_\u3400-\u9fff\uf900-\ufaff]+")


@dataclass(frozen=True)
class RecRequestText:
    responder: str
    text: str


@dataclass(frozen=True)
class RecRequestMeasures:
    type_token_ratio: Measured
    embedding_diversity: Measured
    n_requests: int
    n_responders: int

    def as_json(self) -> dict[str, object]:
        diversity, ttr = self.embedding_diversity, self.type_token_ratio
        notes = [*ttr.notes, *diversity.notes]
        return {
            "type_token_ratio": ttr.value,
            "type_token_ratio_ci": None if ttr.ci is None else list(ttr.ci),
            "embedding_diversity": diversity.value,
            "embedding_diversity_ci": None if diversity.ci is None else list(diversity.ci),
            "n_requests": self.n_requests,
            "n_responders": self.n_responders,
            "notes": list(dict.fromkeys(notes)),
        }


def words(text: str) -> list[str]:
    """The text's words, lower-cased; each Chinese character is one word."""
    return _WORD.findall(text.lower())


def type_token_ratio(text: str) -> float | None:
    """Distinct words over words; None for a text with no word."""
    tokens = words(text)
    return len(set(tokens)) / len(tokens) if tokens else None


def _units(texts: Sequence[RecRequestText]) -> tuple[list[str], npt.NDArray[np.intp]]:
    """The responders, and the responder (row) of each text."""
    row_of = {
        responder: row
        for row, responder in enumerate(dict.fromkeys(text.responder for text in texts))
    }
    return list(row_of), np.array([row_of[text.responder] for text in texts], dtype=np.intp)


def cosine_diversity(text_weights: FloatArray, embeddings: FloatArray) -> FloatArray:
    """1 − weighted mean cosine similarity to the weighted centroid, per row of text weights."""
    totals = text_weights.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        centroids = (text_weights @ embeddings) / totals[:, None]
        norms = np.linalg.norm(embeddings, axis=1)
        similarity = (embeddings @ centroids.T) / (
            norms[:, None] * np.linalg.norm(centroids, axis=1)[None, :]
        )
        mean = (text_weights * similarity.T).sum(axis=1) / totals
    result: FloatArray = 1.0 - mean
    return result


def rec_request(
    texts: Sequence[RecRequestText],
    embeddings: FloatArray | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> RecRequestMeasures:
    """Type–token ratio and, given one embedding per text (rows), embedding diversity."""
    responders, unit_of_text = _units(texts)
    ratios = [type_token_ratio(text.text) for text in texts]
    sums = np.zeros(len(responders))
    counts = np.zeros(len(responders))
    for unit, value in zip(unit_of_text, ratios, strict=True):
        if value is not None:
            sums[unit] += value
            counts[unit] += 1

    def mean_ratio(weights: FloatArray) -> FloatArray:
        return ratio(weights @ sums, weights @ counts)

    ttr = measured(
        mean_ratio,
        len(responders),
        unit=RESPONDERS,
        resamples=resamples,
        seed=seed,
        undefined=Phrase(gettext_noop("no request has a word")),
    )
    diversity = Measured(None, None, (NO_EMBEDDINGS,))
    if embeddings is not None:
        if embeddings.shape[0] != len(texts):
            raise ValueError(
                f"{embeddings.shape[0]} embeddings were given for {len(texts)} requests"
            )
        zero = np.linalg.norm(embeddings, axis=1) == 0
        if zero.any():
            raise ValueError(f"{int(zero.sum())} embedding(s) are all zeros")

        def spread(weights: FloatArray) -> FloatArray:
            return cosine_diversity(weights[:, unit_of_text], embeddings)

        diversity = measured(
            spread,
            len(responders),
            unit=RESPONDERS,
            resamples=resamples,
            seed=seed,
            undefined=Phrase(gettext_noop("there are no requests")),
        )
    return RecRequestMeasures(
        type_token_ratio=ttr,
        embedding_diversity=diversity,
        n_requests=len(texts),
        n_responders=len(responders),
    )
