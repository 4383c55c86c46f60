"""Hits and the scanner that finds them.

A *hit* is one slot value with its position in the message. The scanner runs extractors
over a copy of the text in which characters already used are blanked, so one number is
never read twice.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from liveeval.systems.understanding.times import Span

HitValue: TypeAlias = "str | int | dt.date | list[Span] | bool"
Found: TypeAlias = "list[tuple[str, HitValue]] | None"


@dataclass(frozen=True)
class Hit:
    """One value read from the message, with where it was written."""

    kind: str
    value: HitValue
    start: int
    end: int


class Scanner:
    """Runs extractors over a copy of the text in which characters already used are blanked."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.masked = text
        self.hits: list[Hit] = []

    def take(self, pattern: str, handler: Callable[[re.Match[str]], Found]) -> None:
        for match in list(re.finditer(pattern, self.masked)):
            if not match.group(0).strip():
                continue
            found = handler(match)
            if found is None:
                continue
            self.hits.extend(Hit(kind, value, match.start(), match.end()) for kind, value in found)
            self.mask(match.start(), match.end())

    def mask(self, start: int, end: int) -> None:
        self.masked = self.masked[:start] + " " * (end - start) + self.masked[end:]


def words_pattern(table: Iterable[str]) -> str:
    """An alternation that tries longer words first, with word boundaries around English."""
    return _alternation(tuple(table))


@functools.lru_cache(maxsize=256)
def _alternation(words: tuple[str, ...]) -> str:
    # The tables are constants read on every message: build each alternation once per
    # process, and hand ``re`` the same string object, whose compiled pattern it caches.
    parts = []
    for word in sorted(words, key=len, reverse=True):
        escaped = re.escape(word)
        parts.append(rf"\b{escaped}\b" if word.isascii() else escaped)
    return "|".join(parts)
