"""The record of every call (:class:`evalsite.models.LLMCall`), which is also the cache.

Each call is stored with the exact request, the answer, the token usage, and the cost when
prices are configured. With ``cache`` on, a request identical to one already answered (same
endpoint, model, messages, tools, temperature, seed, response format, token limit: the
:func:`request_hash`) is answered from the record, and recorded again as a free, cached call.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from evalsite.llm.answers import Completion, Embeddings, Message
from evalsite.llm.config import LLMConfig
from evalsite.models import LLMCall


def request_hash(base_url: str, body: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {"base_url": base_url, **body}, sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _recorded_again(
    config: LLMConfig, purpose: str, digest: str, body: dict[str, Any]
) -> LLMCall | None:
    """The stored answer to an identical request, recorded again as a free, cached call."""
    stored = (
        LLMCall.objects.filter(request_hash=digest, status=LLMCall.Status.OK)
        .order_by("-id")
        .first()
    )
    if stored is None:
        return None
    return LLMCall.objects.create(
        purpose=purpose,
        base_url=config.base_url,
        model=config.model,
        request_hash=digest,
        request=body,
        response=stored.response,
        status=LLMCall.Status.OK,
        cached=True,
        attempts=0,
        cost=config.cost(0, 0),
    )


def from_cache(
    config: LLMConfig, purpose: str, digest: str, body: dict[str, Any]
) -> Completion | None:
    """The stored chat answer to an identical request, recorded again as a cached call."""
    call = _recorded_again(config, purpose, digest, body)
    return None if call is None else Completion(call.response, 0, 0, call.cost, True, call.pk)


def embeddings_from_cache(
    config: LLMConfig, purpose: str, digest: str, body: dict[str, Any]
) -> Embeddings | None:
    """The stored embeddings of an identical request, recorded again as a cached call."""
    call = _recorded_again(config, purpose, digest, body)
    if call is None:
        return None
    return Embeddings(call.response["embeddings"], 0, call.cost, True, call.pk)


def record_call(
    config: LLMConfig,
    purpose: str,
    digest: str,
    body: dict[str, Any],
    *,
    status: str,
    started: float,
    attempts: int,
    response: Message | dict[str, list[list[float]]] | None = None,
    error: str = "",
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    cost: Decimal | None = None,
) -> LLMCall:
    """Store one call; ``started`` is the ``time.monotonic()`` it began at."""
    return LLMCall.objects.create(
        purpose=purpose,
        base_url=config.base_url,
        model=config.model,
        request_hash=digest,
        request=body,
        response=response or {},
        status=status,
        error=error,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost=cost,
        attempts=attempts,
        latency_ms=int((time.monotonic() - started) * 1000),
    )


def mark_invalid(call_id: int, problem: str) -> None:
    """An answer that could not be used: never served from the cache."""
    LLMCall.objects.filter(pk=call_id).update(status=LLMCall.Status.INVALID, error=problem)
