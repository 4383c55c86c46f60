"""Deterministic text embeddings for the fake OpenAI server: hashed bags of words.

Each word (lower-cased; each Chinese character is a word) adds ±1 to one of ``dimensions``
coordinates chosen by a hash of the word, so the same text always has the same embedding,
texts that share words point the same way, and the measures built on embeddings can be
checked without a model.
"""

from __future__ import annotations

import hashlib

from evalsite.fidelity.rec_request import words

DIMENSIONS = 32


def deterministic_embedding(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """The text's hashed bag of words; a text with no word gets a fixed unit vector."""
    vector = [0.0] * dimensions
    for word in words(text):
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        index = int.from_bytes(digest[:4], "big") % dimensions
        vector[index] += 1.0 if digest[4] % 2 == 0 else -1.0
    if not any(vector):
        vector[0] = 1.0
    return vector
