"""The form of a task goal, and its validation.

A goal is ``{"intents": [{"domain": "flight|train|hotel", "constraints": {...}}]}``.
Dates are ``"+N"`` (days after the conversation's today) or ISO dates; times are
``HH:MM`` bounds on the departure, both inclusive; cities are Chinese names.
``validate_goal`` turns the JSON of a task card into a ``Goal``, or raises ``GoalError``
naming what is wrong.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evalsite.agreement.phrases import Phrase, gettext_noop
from liveeval.booking.cities import CITY_BY_NAME
from liveeval.booking.offers import (
    CABINS,
    ROOM_TYPES,
    TRAIN_SEATS,
    TRAIN_TYPES,
    Domain,
)

DOMAINS: tuple[Domain, ...] = ("flight", "train", "hotel")


TRAVEL_KEYS = frozenset(
    {"from_city", "to_city", "date", "depart_after", "depart_before", "max_price"}
)


ALLOWED_KEYS: dict[str, frozenset[str]] = {
    "flight": TRAVEL_KEYS | {"cabin"},
    "train": TRAVEL_KEYS | {"seat", "train_type"},
    "hotel": frozenset({"city", "check_in", "nights", "min_stars", "max_price", "room_type"}),
}


REQUIRED_KEYS: dict[str, tuple[str, ...]] = {
    "flight": ("from_city", "to_city", "date"),
    "train": ("from_city", "to_city", "date"),
    "hotel": ("city", "check_in"),
}


RELATIVE_DATE = re.compile(r"^\+(\d{1,3})$")


ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


class GoalError(ValueError):
    """A goal that does not follow the goal format."""


@dataclass(frozen=True)
class Intent:
    """One thing to book. ``date`` is the travel date, or the check-in date of a hotel."""

    domain: Domain
    date: str
    from_city: str | None = None
    to_city: str | None = None
    city: str | None = None
    depart_after: dt.time | None = None
    depart_before: dt.time | None = None
    cabin: str | None = None
    seat: str | None = None
    train_type: str | None = None
    max_price: int | None = None
    nights: int | None = None
    min_stars: int | None = None
    room_type: str | None = None

    def day(self, today: dt.date) -> dt.date:
        return resolve_date(self.date, today)

    def describe(self, today: dt.date) -> str:
        """A one-line summary for people, e.g. ``flight 北京→上海 2026-12-02 06:00–13:00``, as a
        `Phrase` that pages show in the reader's language."""
        day = self.day(today).isoformat()
        if self.domain == "hotel":
            parts: list[str] = [
                Phrase(gettext_noop("hotel %(city)s from %(day)s"), city=str(self.city), day=day)
            ]
            if self.nights is not None:
                parts.append(Phrase(gettext_noop("%(nights)s night(s)"), nights=self.nights))
            if self.min_stars is not None:
                parts.append(Phrase(gettext_noop("%(stars)s★ or more"), stars=self.min_stars))
            if self.room_type is not None:
                parts.append(option_name("hotel", self.room_type))
            if self.max_price is not None:
                parts.append(Phrase(gettext_noop("≤ %(price)s yuan a night"), price=self.max_price))
            return _series(parts)
        head = (
            gettext_noop("flight %(from_city)s→%(to_city)s %(day)s")
            if self.domain == "flight"
            else gettext_noop("train %(from_city)s→%(to_city)s %(day)s")
        )
        parts = [Phrase(head, from_city=str(self.from_city), to_city=str(self.to_city), day=day)]
        if self.depart_after is not None or self.depart_before is not None:
            after = clock_text(self.depart_after) if self.depart_after else "00:00"
            before = clock_text(self.depart_before) if self.depart_before else "23:59"
            parts.append(
                Phrase(gettext_noop("departing %(after)s–%(before)s"), after=after, before=before)
            )
        for domain, value in (("flight", self.cabin), ("train", self.seat)):
            if value is not None:
                parts.append(option_name(domain, value))
        if self.train_type is not None:
            parts.append(Phrase(gettext_noop("type %(type)s"), type=self.train_type))
        if self.max_price is not None:
            parts.append(Phrase(gettext_noop("≤ %(price)s yuan"), price=self.max_price))
        return _series(parts)


# A cabin, seat class or room type as people say it: "first" is a flight's first class but a
# train's first-class seat, which Chinese names differently (头等舱, 一等座).
OPTION_NAMES = {
    ("flight", "economy"): gettext_noop("economy class"),
    ("flight", "business"): gettext_noop("business class"),
    ("flight", "first"): gettext_noop("first class"),
    ("train", "second"): gettext_noop("second-class seat"),
    ("train", "first"): gettext_noop("first-class seat"),
    ("train", "business"): gettext_noop("business-class seat"),
    ("train", "hard_seat"): gettext_noop("hard seat"),
    ("train", "hard_sleeper"): gettext_noop("hard sleeper"),
    ("train", "soft_sleeper"): gettext_noop("soft sleeper"),
    ("hotel", "king"): gettext_noop("king room"),
    ("hotel", "twin"): gettext_noop("twin room"),
    ("hotel", "suite"): gettext_noop("suite"),
}


def option_name(domain: str, option: str) -> str:
    """``option`` of a ``domain`` as a phrase shown in the reader's language; an unknown one as
    it is."""
    msgid = OPTION_NAMES.get((domain, option))
    return Phrase(msgid) if msgid is not None else option


def _series(parts: Sequence[str]) -> str:
    """Parts joined by commas, each language with its own comma."""
    joined = parts[0]
    for part in parts[1:]:
        joined = Phrase(gettext_noop("%(head)s, %(part)s"), head=joined, part=part)
    return joined


@dataclass(frozen=True)
class Goal:
    intents: tuple[Intent, ...]


def resolve_date(value: str, today: dt.date) -> dt.date:
    relative = RELATIVE_DATE.match(value)
    if relative:
        return today + dt.timedelta(days=int(relative.group(1)))
    return dt.date.fromisoformat(value)


def clock_text(value: dt.time) -> str:
    return value.strftime("%H:%M")


def _is_iso_date(value: str) -> bool:
    if not ISO_DATE.match(value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _date_spec(value: object, where: str) -> str:
    if isinstance(value, str) and (RELATIVE_DATE.match(value) or _is_iso_date(value)):
        return value
    raise GoalError(f"{where} must be '+N' or an ISO date (YYYY-MM-DD), not {value!r}")


def _time(value: object, where: str) -> dt.time:
    match = CLOCK.match(value) if isinstance(value, str) else None
    if match is None:
        raise GoalError(f"{where} must be a time HH:MM between 00:00 and 23:59, not {value!r}")
    return dt.time(int(match.group(1)), int(match.group(2)))


def _count(value: object, where: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GoalError(f"{where} must be a whole number, not {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"between {low} and {high}"
        raise GoalError(f"{where} must be {bounds}, not {value}")
    return value


def _choice(value: object, where: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise GoalError(f"{where} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def _city(value: object, where: str) -> str:
    if not isinstance(value, str) or value not in CITY_BY_NAME:
        raise GoalError(f"{where} must be a city of the booking world (in Chinese), not {value!r}")
    return value


def parse_intent(raw: object, index: int) -> Intent:
    where = f"intent {index + 1}"
    if not isinstance(raw, Mapping):
        raise GoalError(f"{where} must be an object with 'domain' and 'constraints'")
    domain = raw.get("domain")
    if domain not in DOMAINS:
        raise GoalError(f"{where}: domain must be one of flight, train, hotel, not {domain!r}")
    constraints = raw.get("constraints")
    if not isinstance(constraints, Mapping):
        raise GoalError(f"{where}: constraints must be an object")
    unknown = sorted(set(constraints) - ALLOWED_KEYS[domain])
    if unknown:
        raise GoalError(f"{where}: unknown {domain} constraint(s): {', '.join(unknown)}")
    missing = [key for key in REQUIRED_KEYS[domain] if key not in constraints]
    if missing:
        raise GoalError(f"{where}: a {domain} intent needs {', '.join(missing)}")

    def get(key: str) -> object:
        return constraints.get(key)

    def at(key: str) -> str:
        return f"{where}: {key}"

    parsed: dict[str, Any] = {}
    for key in ("from_city", "to_city", "city"):
        if key in constraints:
            parsed[key] = _city(get(key), at(key))
    date_key = "check_in" if domain == "hotel" else "date"
    parsed["date"] = _date_spec(get(date_key), at(date_key))
    for key in ("depart_after", "depart_before"):
        if key in constraints:
            parsed[key] = _time(get(key), at(key))
    if "cabin" in constraints:
        parsed["cabin"] = _choice(get("cabin"), at("cabin"), CABINS)
    if "seat" in constraints:
        parsed["seat"] = _choice(get("seat"), at("seat"), TRAIN_SEATS)
    if "train_type" in constraints:
        parsed["train_type"] = _choice(get("train_type"), at("train_type"), TRAIN_TYPES)
    if "room_type" in constraints:
        parsed["room_type"] = _choice(get("room_type"), at("room_type"), ROOM_TYPES)
    if "max_price" in constraints:
        parsed["max_price"] = _count(get("max_price"), at("max_price"), 1)
    if "nights" in constraints:
        parsed["nights"] = _count(get("nights"), at("nights"), 1, 30)
    if "min_stars" in constraints:
        parsed["min_stars"] = _count(get("min_stars"), at("min_stars"), 1, 5)
    if parsed.get("from_city") is not None and parsed.get("from_city") == parsed.get("to_city"):
        raise GoalError(f"{where}: from_city and to_city are the same")
    return Intent(domain=domain, **parsed)


def validate_goal(raw: object) -> Goal:
    """Validate a goal as stored on a task card; raises ``GoalError`` saying what is wrong."""
    if isinstance(raw, Goal):
        return raw
    if not isinstance(raw, Mapping) or not isinstance(raw.get("intents"), list):
        raise GoalError("a goal must be an object with a list of 'intents'")
    unknown = sorted(set(raw) - {"intents"})
    if unknown:
        raise GoalError(f"unknown goal key(s): {', '.join(unknown)}")
    if not raw["intents"]:
        raise GoalError("a goal needs at least one intent")
    return Goal(tuple(parse_intent(intent, index) for index, intent in enumerate(raw["intents"])))
