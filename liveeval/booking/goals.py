"""Task goals that a machine can check against the bookings of a conversation.

A goal is ``{"intents": [{"domain": "flight|train|hotel", "constraints": {...}}]}``.
Dates are ``"+N"`` (days after the conversation's today) or ISO dates; times are
``HH:MM`` bounds on the departure, both inclusive; cities are Chinese names.

A goal is met when every intent is satisfied by a booking of its own: a
conversation that booked one flight cannot tick off two flight intents, however
well the flight fits both. Intents and bookings are paired by a maximum matching,
so the order in which things were booked never matters. Whether a booking fits
is read from the booking's own details, so a goal can be checked long after the
world it was booked in has been replaced.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from liveeval.booking.cities import CITY_BY_NAME
from liveeval.booking.models import Booking
from liveeval.booking.offers import (
    CABINS,
    ROOM_TYPES,
    TRAIN_SEATS,
    TRAIN_TYPES,
    Domain,
    Offer,
)
from liveeval.booking.world import (
    mean_nightly_price,
    search_flights,
    search_hotels,
    search_trains,
    train_types_for,
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
        """A one-line summary for people, e.g. ``flight 北京→上海 2026-12-02 06:00–13:00``."""
        day = self.day(today).isoformat()
        if self.domain == "hotel":
            parts = [f"hotel {self.city} from {day}"]
            if self.nights is not None:
                parts.append(f"{self.nights} night(s)")
            if self.min_stars is not None:
                parts.append(f"{self.min_stars}★ or more")
            if self.room_type is not None:
                parts.append(self.room_type)
            if self.max_price is not None:
                parts.append(f"≤ {self.max_price} yuan a night")
            return ", ".join(parts)
        parts = [f"{self.domain} {self.from_city}→{self.to_city} {day}"]
        if self.depart_after is not None or self.depart_before is not None:
            after = _clock(self.depart_after) if self.depart_after else "00:00"
            before = _clock(self.depart_before) if self.depart_before else "23:59"
            parts.append(f"departing {after}–{before}")
        for value in (self.cabin, self.seat):
            if value is not None:
                parts.append(value)
        if self.train_type is not None:
            parts.append(f"type {self.train_type}")
        if self.max_price is not None:
            parts.append(f"≤ {self.max_price} yuan")
        return ", ".join(parts)


@dataclass(frozen=True)
class Goal:
    intents: tuple[Intent, ...]


class BookingRecord(Protocol):
    """What goal checking reads from a booking (``liveeval.models.Booking`` has it)."""

    reference: str
    domain: str
    option: str
    price: int
    status: str
    details: Any


@dataclass(frozen=True)
class Mismatch:
    """One constraint that a booking breaks."""

    constraint: str
    wanted: str
    booked: str

    def __str__(self) -> str:
        return f"{self.constraint}: wanted {self.wanted}, booked {self.booked}"


@dataclass(frozen=True)
class IntentOutcome:
    """Which booking satisfied an intent, or why none did."""

    index: int
    intent: Intent
    summary: str
    booking: str | None = None
    reason: str = ""
    closest: str | None = None
    mismatches: tuple[Mismatch, ...] = field(default_factory=tuple)

    @property
    def met(self) -> bool:
        return self.booking is not None

    def __str__(self) -> str:
        if self.met:
            return f"✓ {self.summary}: {self.booking}"
        return f"✗ {self.summary}: {self.reason}"


def resolve_date(value: str, today: dt.date) -> dt.date:
    relative = RELATIVE_DATE.match(value)
    if relative:
        return today + dt.timedelta(days=int(relative.group(1)))
    return dt.date.fromisoformat(value)


def _clock(value: dt.time) -> str:
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


def _detail(booking: BookingRecord, key: str) -> str:
    details = booking.details if isinstance(booking.details, Mapping) else {}
    value = details.get(key)
    return "" if value is None else str(value)


def _departure(booking: BookingRecord) -> dt.time | None:
    match = CLOCK.match(_detail(booking, "depart"))
    return dt.time(int(match.group(1)), int(match.group(2))) if match else None


def mismatches(intent: Intent, booking: BookingRecord, today: dt.date) -> list[Mismatch]:
    """Every constraint of ``intent`` that ``booking`` breaks (its status aside)."""
    if booking.domain != intent.domain:
        return [Mismatch("domain", intent.domain, booking.domain)]
    found: list[Mismatch] = []

    def expect(constraint: str, wanted: object, booked: str) -> None:
        if str(wanted) != booked:
            found.append(Mismatch(constraint, str(wanted), booked or "—"))

    day = intent.day(today).isoformat()
    if intent.domain == "hotel":
        expect("city", intent.city, _detail(booking, "city"))
        expect("check_in", day, _detail(booking, "check_in"))
        if intent.nights is not None:
            expect("nights", intent.nights, _detail(booking, "nights"))
        if intent.room_type is not None:
            expect("room_type", intent.room_type, booking.option)
        stars = _detail(booking, "stars")
        if intent.min_stars is not None and not (
            stars.isdigit() and int(stars) >= intent.min_stars
        ):
            found.append(Mismatch("min_stars", f"≥ {intent.min_stars}", stars or "—"))
        nights = _detail(booking, "nights")
        if intent.max_price is not None:
            # A hotel booking's price is the whole stay; the limit is on the mean night.
            nightly = mean_nightly_price(booking.price, int(nights)) if nights.isdigit() else None
            if nightly is None or nightly > intent.max_price:
                shown = "—" if nightly is None else str(nightly)
                found.append(Mismatch("max_price", f"≤ {intent.max_price} a night", shown))
        return found

    expect("from_city", intent.from_city, _detail(booking, "from_city"))
    expect("to_city", intent.to_city, _detail(booking, "to_city"))
    expect("date", day, _detail(booking, "date"))
    depart = _departure(booking)
    shown = _clock(depart) if depart else "—"
    if intent.depart_after is not None and (depart is None or depart < intent.depart_after):
        found.append(Mismatch("depart_after", f"≥ {_clock(intent.depart_after)}", shown))
    if intent.depart_before is not None and (depart is None or depart > intent.depart_before):
        found.append(Mismatch("depart_before", f"≤ {_clock(intent.depart_before)}", shown))
    if intent.cabin is not None:
        expect("cabin", intent.cabin, booking.option)
    if intent.seat is not None:
        expect("seat", intent.seat, booking.option)
    if intent.train_type is not None:
        booked_type = _detail(booking, "train_type")
        if booked_type not in train_types_for(intent.train_type):
            found.append(Mismatch("train_type", intent.train_type, booked_type or "—"))
    if intent.max_price is not None and booking.price > intent.max_price:
        found.append(Mismatch("max_price", f"≤ {intent.max_price}", str(booking.price)))
    return found


def _maximum_matching(candidates: list[list[int]]) -> dict[int, int]:
    """Intent index -> booking index, pairing as many intents as possible (Kuhn's algorithm)."""
    owner: dict[int, int] = {}

    def assign(intent: int, seen: set[int]) -> bool:
        for booking in candidates[intent]:
            if booking in seen:
                continue
            seen.add(booking)
            if booking not in owner or assign(owner[booking], seen):
                owner[booking] = intent
                return True
        return False

    for intent in range(len(candidates)):
        assign(intent, set())
    return {intent: booking for booking, intent in owner.items()}


def explain_goal(
    goal: Goal | Mapping[str, Any], bookings: Iterable[BookingRecord], today: dt.date
) -> list[IntentOutcome]:
    """Per intent, the booking that satisfied it, or why none did."""
    parsed = validate_goal(goal)
    records = list(bookings)
    active = [booking for booking in records if booking.status == Booking.Status.ACTIVE]
    cancelled = [booking for booking in records if booking.status != Booking.Status.ACTIVE]
    candidates = [
        [index for index, booking in enumerate(active) if not mismatches(intent, booking, today)]
        for intent in parsed.intents
    ]
    matching = _maximum_matching(candidates)
    outcomes = []
    for index, intent in enumerate(parsed.intents):
        summary = intent.describe(today)
        if index in matching:
            reference = active[matching[index]].reference
            outcomes.append(IntentOutcome(index, intent, summary, booking=reference))
            continue
        if candidates[index]:
            taken = ", ".join(active[booking].reference for booking in candidates[index])
            reason = f"the bookings that fit ({taken}) already satisfy other intents"
            outcomes.append(IntentOutcome(index, intent, summary, reason=reason))
            continue
        revoked = [booking for booking in cancelled if not mismatches(intent, booking, today)]
        if revoked:
            reason = f"{revoked[0].reference} fit but was cancelled"
            outcomes.append(IntentOutcome(index, intent, summary, reason=reason))
            continue
        same_domain = [booking for booking in active if booking.domain == intent.domain]
        if not same_domain:
            reason = f"no active {intent.domain} booking"
            outcomes.append(IntentOutcome(index, intent, summary, reason=reason))
            continue
        closest = min(same_domain, key=lambda booking: len(mismatches(intent, booking, today)))
        broken = tuple(mismatches(intent, closest, today))
        reason = f"no booking fits; the closest, {closest.reference}, breaks " + "; ".join(
            str(mismatch) for mismatch in broken
        )
        outcomes.append(
            IntentOutcome(
                index,
                intent,
                summary,
                reason=reason,
                closest=closest.reference,
                mismatches=broken,
            )
        )
    return outcomes


def goal_met(
    goal: Goal | Mapping[str, Any], bookings: Iterable[BookingRecord], today: dt.date
) -> bool:
    """Whether every intent is satisfied by a distinct active booking."""
    return all(outcome.met for outcome in explain_goal(goal, bookings, today))


def offers_for_intent(intent: Intent, today: dt.date) -> list[Offer]:
    """What the world offers that would satisfy ``intent`` if booked."""
    day = intent.day(today)
    offers: list[Offer] = []
    if intent.domain == "flight":
        assert intent.from_city is not None and intent.to_city is not None
        offers.extend(
            search_flights(
                intent.from_city,
                intent.to_city,
                day,
                depart_after=intent.depart_after,
                depart_before=intent.depart_before,
                cabin=intent.cabin,
                max_price=intent.max_price,
            )
        )
    elif intent.domain == "train":
        assert intent.from_city is not None and intent.to_city is not None
        offers.extend(
            search_trains(
                intent.from_city,
                intent.to_city,
                day,
                depart_after=intent.depart_after,
                depart_before=intent.depart_before,
                seat=intent.seat,
                train_type=intent.train_type,
                max_price=intent.max_price,
            )
        )
    else:
        assert intent.city is not None
        offers.extend(
            search_hotels(
                intent.city,
                day,
                intent.nights or 1,
                min_stars=intent.min_stars,
                max_price=intent.max_price,
                room_type=intent.room_type,
            )
        )
    return offers


def describe_booking(booking: BookingRecord) -> str:
    """One line for people, e.g. ``FL-7K2M9Q flight CA1501 北京→上海 2026-12-02 08:05 economy``."""
    get = functools.partial(_detail, booking)
    if booking.domain == "hotel":
        what = f"{get('hotel')} {get('check_in')} × {get('nights')} {booking.option}"
    else:
        route = f"{get('from_city')}→{get('to_city')}"
        what = f"{get('number')} {route} {get('date')} {get('depart')} {booking.option}"
    return f"{booking.reference} {booking.domain} {what}, {booking.price} yuan ({booking.status})"


def describe_bookings(bookings: Iterable[BookingRecord]) -> list[dict[str, object]]:
    """Bookings as plain JSON-ready values, for command output and exports."""
    return [
        {
            "reference": booking.reference,
            "domain": booking.domain,
            "option": booking.option,
            "price": booking.price,
            "status": booking.status,
            "summary": describe_booking(booking),
        }
        for booking in bookings
    ]


def check_goal_satisfiable(goal: Goal | Mapping[str, Any], today: dt.date) -> list[str]:
    """What keeps a conversation starting on ``today`` from meeting ``goal``; empty if nothing.

    Each intent must find at least one offer in the world, on a date not before today.
    """
    problems = []
    for index, intent in enumerate(validate_goal(goal).intents):
        label = f"intent {index + 1} ({intent.describe(today)})"
        if intent.day(today) < today:
            problems.append(f"{label}: its date is before {today.isoformat()}")
        elif not offers_for_intent(intent, today):
            problems.append(f"{label}: nothing in the booking world fits")
    return problems
