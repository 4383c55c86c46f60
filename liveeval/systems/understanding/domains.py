"""Which booking domain (flight, train, hotel) a message names, and its clauses."""

from __future__ import annotations

import re

from liveeval.booking.offers import Domain

DOMAIN_PATTERNS: dict[Domain, str] = {
    "flight": (
        r"机票|航班|飞机|班机|飞|\bflights?\b|\bfly(?:ing)?\b|\bplanes?\b|\bairlines?\b"
        r"|\bair tickets?\b|\bairfare\b"
    ),
    "train": (
        r"火车|高铁|动车|列车|(?<!汽)车票|铁路|\btrains?\b|\brail(?:way)?\b|\bhigh[- ]speed\b"
    ),
    "hotel": (
        r"酒店|宾馆|旅馆|饭店|住宿|订房|房间|客房|民宿|(?<![记居])住|\bhotels?\b|\brooms?\b"
        r"|\bstay(?:ing)?\b|\baccommodation\b|\binn\b|\bhostel\b"
    ),
}


_CLAUSE_BREAK = re.compile(
    r"[,;.!?\n、。]+(?!\d)|然后|接着|(?<![一])再(?!见)|还有|以及|另外|并且|同时|顺便|和|跟"
    r"|\band then\b|\bthen\b|\balso\b|\bplus\b|\bas well as\b|\band\b(?!\s*\d)"
)


def domain_mentions(text: str) -> list[tuple[int, Domain]]:
    """Every word naming a booking domain, by position."""
    mentions = [
        (match.start(), domain)
        for domain, pattern in DOMAIN_PATTERNS.items()
        for match in re.finditer(pattern, text)
    ]
    return sorted(mentions)


def clause_bounds(text: str) -> list[tuple[int, int]]:
    bounds: list[tuple[int, int]] = []
    start = 0
    for match in _CLAUSE_BREAK.finditer(text):
        if match.start() > start:
            bounds.append((start, match.start()))
        start = match.end()
    if start < len(text) or not bounds:
        bounds.append((start, len(text)))
    return bounds
