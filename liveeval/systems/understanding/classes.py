"""Travel classes, room and train types, and superlatives ("the cheapest") named in words."""

from __future__ import annotations

import re
from collections.abc import Callable

from liveeval.systems.understanding.scanner import Found, Scanner, words_pattern

CABIN_WORDS_ZH = {
    "经济舱": "economy",
    "商务舱": "business",
    "公务舱": "business",
    "头等舱": "first",
}


SEAT_WORDS_ZH = {
    "二等座": "second",
    "一等座": "first",
    "商务座": "business",
    "硬座": "hard_seat",
    "硬卧": "hard_sleeper",
    "软卧": "soft_sleeper",
    "卧铺": "hard_sleeper",
    "二等": "second",
    "一等": "first",
}


ROOM_WORDS = {
    "大床房": "king",
    "大床": "king",
    "单人间": "king",
    "双床房": "twin",
    "双床": "twin",
    "标准间": "twin",
    "标间": "twin",
    "双人间": "twin",
    "双人房": "twin",
    "套房": "suite",
    "套间": "suite",
    "king": "king",
    "queen": "king",
    "double bed": "king",
    "double room": "king",
    "twin": "twin",
    "two beds": "twin",
    "suite": "suite",
}


TRAIN_TYPE_WORDS = {
    "高铁": "G",
    "动车": "D",
    "普通列车": "K",
    "普通火车": "K",
    "普快": "K",
    "绿皮": "K",
    "特快": "T",
    "直达": "Z",
    "high-speed": "G",
    "high speed": "G",
    "bullet train": "G",
    "regular train": "K",
    "slow train": "K",
}


def _both_classes(cabin: str, seat: str) -> Callable[[re.Match[str]], Found]:
    return lambda m: [("cabin", cabin), ("seat", seat)]


def class_hits(scanner: Scanner) -> None:
    def table(kind: str, words: dict[str, str]) -> None:
        scanner.take(words_pattern(words), lambda m: [(kind, words[m[0]])])

    table("cabin", CABIN_WORDS_ZH)
    table("seat", SEAT_WORDS_ZH)
    # English class words name a cabin and a seat class at once; the domain picks one.
    english_classes = (
        (r"\b(?:economy|coach)(?:[- ]class)?\b", "economy", "second"),
        (
            r"\bbusiness(?:[- ]class| cabin| seats?)\b|\b(?:in|fly|flying) business\b",
            "business",
            "business",
        ),
        (r"\bfirst[- ]class\b|\bfirst cabin\b", "first", "first"),
        (r"\bsecond[- ]class\b|\bstandard class\b", "economy", "second"),
    )
    for pattern, cabin, seat in english_classes:
        scanner.take(pattern, _both_classes(cabin, seat))
    sleepers = {"hard seat": "hard_seat", "hard sleeper": "hard_sleeper",
                "soft sleeper": "soft_sleeper", "sleeper": "hard_sleeper"}  # fmt: skip
    table("seat", sleepers)
    table("room_type", ROOM_WORDS)
    table("train_type", TRAIN_TYPE_WORDS)
    scanner.take(
        r"(?<![a-z])(?P<t>[gdkzt])\s*(?:字头|开头|打头|字)|\b(?P<u>[gdkzt])[- ]?(?:trains?|type)\b",
        lambda m: [("train_type", (m["t"] or m["u"]).upper())],
    )
    superlatives = {
        "最早": "earliest", "最晚": "latest", "最便宜": "cheapest", "最实惠": "cheapest",
        "价格最低": "cheapest", "评分最高": "best", "评价最高": "best",
        "earliest": "earliest", "latest": "latest", "cheapest": "cheapest",
        "lowest price": "cheapest", "best rated": "best", "highest rated": "best",
        "top rated": "best", "best": "best",
    }  # fmt: skip
    table("prefer", superlatives)
