"""What a model answered: a chat completion, embeddings, or a structured (JSON) answer
or why there is none.

A JSON answer may come in one fenced code block; :func:`parse_json` reads it either way, and
:func:`validated` applies a validator that returns the value or raises ``ValueError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Generic, TypeVar

T = TypeVar("T")
Message = dict[str, Any]

FENCED = re.compile(r"^```[a-zA-Z]*\s*\n(.*)\n\s*```$", re.DOTALL)


@dataclass(frozen=True)
class Embeddings:
    """One vector per text asked about, in order, and what the call cost."""

    vectors: list[list[float]]
    prompt_tokens: int
    cost: Decimal | None
    cached: bool
    call_id: int


@dataclass(frozen=True)
class Completion:
    """The assistant's message, as an OpenAI chat message dict, and what the call cost."""

    message: Message
    prompt_tokens: int
    completion_tokens: int
    cost: Decimal | None
    cached: bool
    call_id: int

    @property
    def content(self) -> str:
        return str(self.message.get("content") or "")

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.message.get("tool_calls") or [])


@dataclass(frozen=True)
class JSONAnswer(Generic[T]):
    """A validated structured answer, or the reason there is none and the raw text received."""

    value: T | None
    error: str = ""
    raw: str = ""
    completions: tuple[Completion, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not self.error


def parse_json(text: str) -> Any:
    """The JSON value of an answer, which may sit in one fenced code block."""
    stripped = text.strip()
    fenced = FENCED.match(stripped)
    return json.loads(fenced.group(1) if fenced else stripped)


def validated(text: str, validate: Callable[[Any], T]) -> tuple[T | None, str]:
    """The value ``validate`` makes of the JSON in ``text``, or what is wrong with it."""
    try:
        data = parse_json(text)
    except ValueError as error:
        return None, f"the answer is not valid JSON ({error})"
    try:
        return validate(data), ""
    except (ValueError, TypeError, KeyError) as error:
        return None, f"the JSON does not fit: {error}"
