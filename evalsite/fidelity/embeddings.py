"""Embeddings of a group's texts from an OpenAI-compatible endpoint, for embedding diversity.

Texts are sent in batches through the one LLM client, with its cache on, so measuring the same
file again costs nothing. Each call is recorded (`evalsite.models.LLMCall`), so this needs the
database.
"""

from __future__ import annotations

from collections.abc import Sequence

from asgiref.sync import async_to_sync

from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig

# Texts per request: well under the input limits of OpenAI and vLLM.
BATCH = 100


class EndpointEmbedder:
    """Embeds texts with one endpoint's model; raises `evalsite.llm.errors.LLMError`."""

    def __init__(self, config: LLMConfig) -> None:
        self.config = config

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        return async_to_sync(self._embed)(list(texts))

    async def _embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        async with LLMClient(self.config, purpose="fidelity embeddings") as llm:
            for start in range(0, len(texts), BATCH):
                vectors.extend((await llm.embed(texts[start : start + BATCH])).vectors)
        return vectors
