"""What a job asked of its endpoint: every LLM call is recorded under the job's purpose.

:func:`job_purpose` names the purpose a job's calls are recorded under, and
:meth:`Usage.of` sums the record over it: HTTP requests, answers from the cache, tokens and
cost. A cached answer costs nothing; the cost is None when no price is configured.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TypedDict

from django.db.models import Count, Q, Sum

from evalsite.llm.config import COST_PLACES
from evalsite.models import Job, LLMCall


def job_purpose(job: Job) -> str:
    """The purpose the job's LLM calls are recorded under: its usage is summed over it."""
    return f"{job.kind} job {job.pk}"


class UsageResult(TypedDict):
    """A run's usage as it is stored in a job's result (JSON: the cost as text)."""

    requests: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    cost: str | None


@dataclass(frozen=True)
class Usage:
    """What one run asked of the endpoint: HTTP requests, answers from the cache, tokens, cost.

    ``cost`` is None when no price is configured. A cached answer costs nothing.
    """

    requests: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    cost: Decimal | None

    @classmethod
    def of(cls, purpose: str) -> Usage:
        figures = LLMCall.objects.filter(purpose=purpose).aggregate(
            requests=Sum("attempts"),
            cache_hits=Count("pk", filter=Q(cached=True)),
            prompt_tokens=Sum("prompt_tokens"),
            completion_tokens=Sum("completion_tokens"),
            cost=Sum("cost"),
        )
        return cls(
            requests=figures["requests"] or 0,
            cache_hits=figures["cache_hits"],
            prompt_tokens=figures["prompt_tokens"] or 0,
            completion_tokens=figures["completion_tokens"] or 0,
            # SQLite sums decimals as floats; the record keeps six places.
            cost=None
            if figures["cost"] is None
            else Decimal(figures["cost"]).quantize(COST_PLACES),
        )

    def as_result(self) -> UsageResult:
        return {
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": None if self.cost is None else str(self.cost),
        }
