"""Task goals that a machine can check against the bookings of a conversation.

A goal (its form: ``goal_validation``) is met when every intent is satisfied by a booking
of its own: a conversation that booked one flight cannot tick off two flight intents, however
well the flight fits both. Intents and bookings are paired by a maximum matching,
so the order in which things were booked never matters. Whether a booking fits
is read from the booking's own details, so a goal can be checked long after the
world it was booked in has been replaced.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from evalsite.agreement.phrases import Clauses, Phrase, gettext_noop
from liveeval.booking.goal_validation import CLOCK, Goal, Intent, clock_text, validate_goal
from liveeval.booking.models import Booking
from liveeval.booking.search import (
    mean_nightly_price,
    train_types_for,
)


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
        return self.phrase()

    def phrase(self) -> Phrase:
        return Phrase(
            gettext_noop("%(constraint)s: wanted %(wanted)s, booked %(booked)s"),
            constraint=self.constraint,
            wanted=self.wanted,
            booked=self.booked,
        )


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
        return self.phrase()

    def phrase(self) -> Phrase:
        """The line a page shows, in the reader's language (`evalsite.agreement.phrases.shown`)."""
        if self.met:
            return Phrase(
                gettext_noop("✓ %(summary)s: %(booking)s"),
                summary=self.summary,
                booking=self.booking or "",
            )
        return Phrase(
            gettext_noop("✗ %(summary)s: %(reason)s"), summary=self.summary, reason=self.reason
        )


NO_ACTIVE = {
    "flight": gettext_noop("no active flight booking"),
    "train": gettext_noop("no active train booking"),
    "hotel": gettext_noop("no active hotel booking"),
}


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
    shown = clock_text(depart) if depart else "—"
    if intent.depart_after is not None and (depart is None or depart < intent.depart_after):
        found.append(Mismatch("depart_after", f"≥ {clock_text(intent.depart_after)}", shown))
    if intent.depart_before is not None and (depart is None or depart > intent.depart_before):
        found.append(Mismatch("depart_before", f"≤ {clock_text(intent.depart_before)}", shown))
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
            reason: str = Phrase(
                gettext_noop("the bookings that fit (%(taken)s) already satisfy other intents"),
                taken=taken,
            )
            outcomes.append(IntentOutcome(index, intent, summary, reason=reason))
            continue
        revoked = [booking for booking in cancelled if not mismatches(intent, booking, today)]
        if revoked:
            reason = Phrase(
                gettext_noop("%(reference)s fit but was cancelled"),
                reference=revoked[0].reference,
            )
            outcomes.append(IntentOutcome(index, intent, summary, reason=reason))
            continue
        same_domain = [booking for booking in active if booking.domain == intent.domain]
        if not same_domain:
            reason = Phrase(NO_ACTIVE.get(intent.domain, NO_ACTIVE["flight"]))
            outcomes.append(IntentOutcome(index, intent, summary, reason=reason))
            continue
        closest = min(same_domain, key=lambda booking: len(mismatches(intent, booking, today)))
        broken = tuple(mismatches(intent, closest, today))
        reason = Phrase(
            gettext_noop("no booking fits; the closest, %(reference)s, breaks %(broken)s"),
            reference=closest.reference,
            broken=Clauses(mismatch.phrase() for mismatch in broken),
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
