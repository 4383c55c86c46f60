"""Reading booking requests in Chinese and English.

Everything here is a pure function of the text (and of "today" for dates), so that the
reference and baseline systems read a message in exactly the same way and every rule can
be tested case by case. ``docs/booking.md`` publishes the tables used here.

A message is read in three layers:

* *hits*: slot values with their position (dates, time spans, cities with their role,
  prices, stars, nights, classes...). Each extractor masks the text it used, so one
  number is never read twice ("3号下午3点以后800以内" yields a date, a limit and a price).
* *clauses*: the message split at punctuation and conjunctions, each with the first
  booking domain it names, so that "a train to Shanghai and a hotel there for two nights"
  can route the nights to the hotel and the city to the train.
* *acts*: confirmations, refusals, corrections, cancellations, farewells and requests the
  booking world does not cover.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from liveeval.booking.offers import Domain
from liveeval.systems.understanding.acts import (
    AGAIN,
    CANCEL,
    CHEAPER,
    CONFIRM_ALONE_EN,
    CONFIRM_ALONE_ZH,
    CONFIRM_ANYWHERE_EN,
    CONFIRM_ANYWHERE_ZH,
    CORRECTION,
    DECLINE,
    DENY_ALONE,
    DENY_ANYWHERE,
    FAREWELL,
    GOODBYE,
    GREETING,
    GREETING_WORDS,
    HELP,
    OFF_TOPIC,
    OPEN_ANSWER,
    PARTICLES,
    THANKS,
    UNSUPPORTED,
    alone,
    anywhere,
    clause_texts,
    read_ordinal,
)
from liveeval.systems.understanding.cities import city_hits
from liveeval.systems.understanding.classes import class_hits
from liveeval.systems.understanding.dates import date_hits
from liveeval.systems.understanding.domains import clause_bounds, domain_mentions
from liveeval.systems.understanding.language import normalise
from liveeval.systems.understanding.numbers import EN_NUM, number_hits, number_value
from liveeval.systems.understanding.scanner import Hit, Scanner, words_pattern
from liveeval.systems.understanding.times import Span, combine_spans, time_hits, window_hits


@dataclass
class Slots:
    """Slot values read from (part of) a message; lists keep the order they were written in."""

    from_city: str | None = None
    to_city: str | None = None
    stay_city: str | None = None
    cities: list[str] = field(default_factory=list)
    dates: list[dt.date] = field(default_factory=list)
    check_out: dt.date | None = None
    spans: list[Span] | None = None
    any_time: bool = False
    cabin: str | None = None
    seat: str | None = None
    train_type: str | None = None
    max_price: int | None = None
    min_stars: int | None = None
    nights: int | None = None
    room_type: str | None = None
    prefer: str | None = None

    @classmethod
    def from_hits(cls, hits: Iterable[Hit]) -> Slots:
        slots = cls()
        spans: list[Span] = []
        for hit in hits:
            value = hit.value
            if hit.kind == "city" and isinstance(value, str):
                slots.cities.append(value)
            elif hit.kind == "date" and isinstance(value, dt.date):
                slots.dates.append(value)
            elif hit.kind == "spans" and isinstance(value, list):
                spans.extend(value)
                slots.spans = combine_spans(spans)
            elif hit.kind == "any_time":
                slots.any_time = True
            elif hasattr(slots, hit.kind):
                setattr(slots, hit.kind, value)
        return slots


CORRECTABLE = {
    "city",
    "from_city",
    "to_city",
    "stay_city",
    "date",
    "spans",
    "cabin",
    "seat",
    "train_type",
    "nights",
    "room_type",
}
"""The slots a correction can change in the same breath as it cancels what was said."""


@dataclass
class Reading:
    """Everything understood from one message."""

    text: str
    hits: list[Hit]
    mentions: list[tuple[int, Domain]]
    clauses: list[tuple[int, int]]
    unknown_places: list[str]
    ordinal: int | None
    number_only: int | None
    confirm: bool
    deny: bool
    decline: bool
    cancel: bool
    farewell: bool
    goodbye: bool
    thanks: bool
    greeting: bool
    help: bool
    open_answer: bool
    correction: bool
    again: bool
    cheaper: bool
    off_topic: bool
    unsupported: str | None

    @property
    def domains(self) -> list[Domain]:
        """The domains named, each once, in the order first named."""
        ordered: list[Domain] = []
        for _, domain in self.mentions:
            if domain not in ordered:
                ordered.append(domain)
        return ordered

    @property
    def superlative(self) -> str | None:
        return next((str(hit.value) for hit in self.hits if hit.kind == "prefer"), None)

    def slots(self) -> Slots:
        return Slots.from_hits(self.hits)

    def clause_of(self, position: int) -> int:
        for index, (start, end) in enumerate(self.clauses):
            if start <= position < end:
                return index
        return max(0, len(self.clauses) - 1)

    def clause_domain(self, index: int) -> Domain | None:
        start, end = self.clauses[index]
        return next((domain for pos, domain in self.mentions if start <= pos < end), None)

    def domain_near(self, index: int) -> Domain | None:
        """The domain a clause is about: its own, else the nearest one named before it, else after.

        "a train to Wuhan in 8 days, under 800 yuan": the price follows the train it modifies.
        """
        own = self.clause_domain(index)
        if own is not None:
            return own
        before = (self.clause_domain(i) for i in range(index - 1, -1, -1))
        after = (self.clause_domain(i) for i in range(index + 1, len(self.clauses)))
        return next((d for d in before if d), None) or next((d for d in after if d), None)

    def has_content(self) -> bool:
        return bool(self.hits or self.mentions or self.ordinal is not None)


_NUMBER_ONLY = re.compile(
    rf"\s*(?P<n>\d+|[一二两三四五六七八九十]+|{EN_NUM})\s*(?:个|晚|间|位|张|天|nights?)?"
    rf"\s*{PARTICLES}\s*[.!。]*\s*"
)


def read(text: str, today: dt.date) -> Reading:
    """Read one message; ``today`` resolves relative dates."""
    normal = normalise(text).strip()
    scanner = Scanner(normal)
    scanner.take(GREETING_WORDS, lambda m: [])
    unknown = city_hits(scanner)
    only = _NUMBER_ONLY.fullmatch(normal)
    ordinal = read_ordinal(scanner)
    date_hits(scanner, today)
    time_hits(scanner)
    number_hits(scanner)
    window_hits(scanner)
    class_hits(scanner)
    clauses = clause_texts(normal)
    unsupported = next(
        (UNSUPPORTED[m[0]] for m in re.finditer(words_pattern(UNSUPPORTED), normal)), None
    )
    correction = anywhere(CORRECTION, normal)
    # "Cancel that, make it Hangzhou" corrects the request; it does not drop it.
    corrects = correction and any(hit.kind in CORRECTABLE for hit in scanner.hits)
    return Reading(
        text=normal,
        hits=sorted(scanner.hits, key=lambda hit: hit.start),
        mentions=[] if unsupported else domain_mentions(normal),
        clauses=clause_bounds(normal),
        unknown_places=unknown,
        ordinal=ordinal,
        number_only=number_value(only["n"]) if only else None,
        confirm=alone(CONFIRM_ALONE_ZH + "|" + CONFIRM_ALONE_EN, clauses)
        or anywhere(CONFIRM_ANYWHERE_ZH + "|" + CONFIRM_ANYWHERE_EN, normal),
        deny=alone(DENY_ALONE, clauses) or anywhere(DENY_ANYWHERE, normal),
        decline=anywhere(DECLINE, normal),
        cancel=anywhere(CANCEL, normal) and not corrects,
        farewell=anywhere(FAREWELL, normal) or alone(r"没有|no|nope|不用|不需要", clauses),
        goodbye=anywhere(GOODBYE, normal),
        thanks=anywhere(THANKS, normal),
        greeting=anywhere(GREETING, normal),
        help=anywhere(HELP, normal),
        open_answer=anywhere(OPEN_ANSWER, normal),
        correction=correction,
        again=anywhere(AGAIN, normal),
        cheaper=anywhere(CHEAPER, normal),
        off_topic=anywhere(OFF_TOPIC, normal),
        unsupported=unsupported,
    )
