"""Slot filling: which of the dialogue's requests each part of a message is about, and the
slot values it sets; the base of the reference system's turn, which also collects the reply.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from liveeval.booking.offers import World
from liveeval.systems.reference import wording
from liveeval.systems.reference.state import (
    Dialogue,
    Intent,
    effective_slots,
)
from liveeval.systems.reference.wording import Phrase, date_text
from liveeval.systems.understanding.reading import Reading, Slots, read
from liveeval.systems.understanding.scanner import Hit
from liveeval.systems.understanding.times import ANY_TIME

HOTEL_ONLY_HITS = {"nights", "min_stars", "room_type", "check_out"}
TRIP_ONLY_HITS = {"spans", "any_time", "cabin", "seat", "train_type"}


class SlotFilling:
    """One user message being understood: the dialogue, the reading and the reply so far."""

    def __init__(self, world: World, dialogue: Dialogue, reading: Reading, lang: str) -> None:
        self.world = world
        self.d = dialogue
        self.r = reading
        self.lang = lang
        self.parts: list[str] = []
        self.changed: list[Intent] = []
        self.created: list[Intent] = []

    def say(self, phrase: Phrase, **values: object) -> None:
        """Add a phrase to the reply, in the conversation's language."""
        text = phrase.text(self.lang, **values)
        if self.parts and not text.startswith("\n"):
            text = wording.SENTENCE_GAP.text(self.lang) + text
        self.parts.append(text)

    # -- intents and slots

    def _reopen(self, intent: Intent) -> None:
        """A correction after booking: propose again, and replace the booking once confirmed."""
        intent.status = "open"
        intent.replaces = intent.booking
        intent.booking = None
        intent.options = []
        intent.skip = []

    def _drop(self, intent: Intent) -> None:
        """Give up a request; a correction given up leaves the original booking in place."""
        intent.options = []
        if intent.replaces is not None:
            intent.status = "booked"
            intent.booking = intent.replaces
            intent.replaces = None
        else:
            intent.status = "dropped"

    def _new(self, domain: str, slots: dict[str, Any] | None = None) -> Intent:
        intent = Intent(domain=domain, slots=dict(slots or {}))
        self.d.intents.append(intent)
        self.created.append(intent)
        return intent

    def _open_intents(self) -> None:
        r, d = self.r, self.d
        for domain in r.domains:
            if d.open_of(domain) is not None:
                continue
            booked = d.last_booked(domain)
            if r.correction and booked is not None:
                self._reopen(booked)
            else:
                self._new(domain)
        slot_hits = [hit for hit in r.hits if hit.kind != "prefer" or d.pending != "confirm"]
        if not r.domains and d.current() is None and slot_hits:
            slots = r.slots()
            last = d.intents[-1] if d.intents else None
            booked = d.last_booked()
            if last is None:
                d.draft.append(r.text)
            elif r.again or (slots.from_city and slots.to_city and not r.correction):
                self._new(last.domain, last.slots if r.again else None)
            elif booked is not None:
                self._reopen(booked)
        if self.created and d.draft:
            for text in d.draft:
                self._apply(self.created[0], read(text, self.world.today).slots())
            d.draft = []

    def _target(self, hit: Hit) -> Intent | None:
        d = self.d
        domain = self.r.domain_near(self.r.clause_of(hit.start))
        base = (d.open_of(domain) if domain else None) or d.current()
        if hit.kind in ("from_city", "to_city") and base is not None and not base.is_trip:
            # "from Beijing to Shanghai" describes a journey even next to a hotel.
            base = next((i for i in d.intents if i.status == "open" and i.is_trip), base)
        if hit.kind in HOTEL_ONLY_HITS:
            if base is not None and base.domain == "hotel":
                return base
            hotel = d.open_of("hotel")
            if hotel is not None:
                return hotel
            booked = d.last_booked("hotel")
            if booked is not None:
                self._reopen(booked)
                return booked
            return self._new("hotel")
        if hit.kind in TRIP_ONLY_HITS:
            if base is not None and base.is_trip:
                return base
            return next((i for i in d.intents if i.status == "open" and i.is_trip), None)
        return base

    def _route(self) -> None:
        grouped: list[tuple[Intent, list[Hit]]] = []
        for hit in self.r.hits:
            if hit.kind == "prefer" and self.d.pending == "confirm":
                continue  # "the cheapest" picks among the shown options instead
            target = self._target(hit)
            if target is None:
                continue
            for intent, hits in grouped:
                if intent is target:
                    hits.append(hit)
                    break
            else:
                grouped.append((target, [hit]))
        for intent, hits in grouped:
            if self._apply(intent, Slots.from_hits(hits)) and intent not in self.changed:
                self.changed.append(intent)

    def _pending_for(self, intent: Intent) -> str | None:
        asked = self.d.asked
        if asked is not None and asked < len(self.d.intents) and self.d.intents[asked] is intent:
            return self.d.pending
        return None

    def _valid_day(self, day: dt.date) -> bool:
        if day < self.world.today:
            self.say(wording.DAY_PASSED, day=date_text(day.isoformat(), self.lang))
            return False
        return True

    def _apply(self, intent: Intent, slots: Slots) -> bool:
        before = dict(intent.slots)
        if intent.is_trip:
            self._apply_trip(intent, slots)
        else:
            self._apply_hotel(intent, slots)
        if slots.max_price:
            intent.slots["max_price"] = slots.max_price
        if slots.prefer:
            intent.slots["prefer"] = slots.prefer
        return intent.slots != before

    def _apply_trip(self, intent: Intent, slots: Slots) -> None:
        s = intent.slots
        pending = self._pending_for(intent)
        previous = (s.get("from_city"), s.get("to_city"))
        if slots.from_city:
            s["from_city"] = slots.from_city
        if slots.to_city:
            s["to_city"] = slots.to_city
        for city in [*slots.cities, *([slots.stay_city] if slots.stay_city else [])]:
            if pending == "from_city" and not slots.from_city:
                key = "from_city"
            elif (pending == "to_city" and not slots.to_city) or "to_city" not in s:
                key = "to_city"
            elif "from_city" not in s:
                key = "from_city"
            else:
                key = "to_city"
            s[key] = city
            pending = None
        if s.get("from_city") and s.get("from_city") == s.get("to_city"):
            self.say(wording.SAME_CITIES)
            for key, old in zip(("from_city", "to_city"), previous, strict=True):
                if old is None:
                    s.pop(key, None)
                else:
                    s[key] = old
        day = slots.dates[0] if slots.dates else slots.check_out
        if day is not None and self._valid_day(day):
            s["date"] = day.isoformat()
        if slots.spans:
            s["time"] = [list(span) for span in slots.spans]
        elif slots.any_time:
            s["time"] = [list(span) for span in ANY_TIME]
        if intent.domain == "flight" and slots.cabin:
            s["cabin"] = slots.cabin
        if intent.domain == "train":
            if slots.seat:
                s["seat"] = slots.seat
            if slots.train_type:
                s["train_type"] = slots.train_type
        if slots.prefer in ("earliest", "latest", "cheapest") and "time" not in s:
            s["time"] = [list(span) for span in ANY_TIME]

    def _apply_hotel(self, intent: Intent, slots: Slots) -> None:
        s = intent.slots
        city = slots.stay_city or slots.to_city or next(iter(slots.cities), None)
        city = city or slots.from_city
        if city:
            s["city"] = city
        if slots.dates and self._valid_day(slots.dates[0]):
            s["check_in"] = slots.dates[0].isoformat()
            if s.get("check_out", "") <= s["check_in"]:
                s.pop("check_out", None)
        if slots.check_out is not None:
            check_in = effective_slots(self.d, intent).get("check_in")
            if check_in is None:
                s["check_out"] = slots.check_out.isoformat()
            elif (slots.check_out - dt.date.fromisoformat(check_in)).days > 0:
                s["nights"] = (slots.check_out - dt.date.fromisoformat(check_in)).days
            else:
                self.say(wording.CHECK_OUT_TOO_EARLY)
        if slots.nights:
            s["nights"] = slots.nights
        if slots.min_stars:
            s["min_stars"] = slots.min_stars
        if slots.room_type:
            s["room_type"] = slots.room_type
