"""The reference system's dialogue state: the requests (intents) of one conversation.

Everything here is JSON-serialisable, so that another server process can take the next
message: ``Dialogue.load`` and ``Dialogue.dump`` convert to and from ``ChatSession.state``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from liveeval.systems.understanding.times import Span

Option = dict[str, Any]


@dataclass
class PolicyTurn:
    text: str
    end: bool
    state: dict[str, Any]
    lang: str


@dataclass
class Intent:
    """One booking the user wants; ``slots`` hold JSON values (ISO dates, [start, end] spans)."""

    domain: str
    slots: dict[str, Any] = field(default_factory=dict)
    status: str = "open"
    options: list[Option] = field(default_factory=list)
    proposed: int = 0
    skip: list[int] = field(default_factory=list)
    booking: dict[str, Any] | None = None
    replaces: dict[str, Any] | None = None

    @property
    def is_trip(self) -> bool:
        return self.domain in ("flight", "train")


@dataclass
class Dialogue:
    lang: str = ""
    intents: list[Intent] = field(default_factory=list)
    pending: str | None = None
    asked: int | None = None
    draft: list[str] = field(default_factory=list)
    ended: bool = False

    @classmethod
    def load(cls, state: dict[str, Any]) -> Dialogue:
        data = dict(state)
        intents = [Intent(**intent) for intent in data.pop("intents", [])]
        return cls(intents=intents, **data)

    def dump(self) -> dict[str, Any]:
        # Field by field, without ``dataclasses.asdict``'s deep copy of every option and span:
        # the values are JSON already, and the dialogue is dropped once it is dumped.
        fields = {name: getattr(self, name) for name in _DIALOGUE_FIELDS}
        fields["intents"] = [
            {name: getattr(intent, name) for name in _INTENT_FIELDS} for intent in self.intents
        ]
        return fields

    def current(self) -> Intent | None:
        return next((intent for intent in self.intents if intent.status == "open"), None)

    def open_of(self, domain: str) -> Intent | None:
        return next((i for i in self.intents if i.status == "open" and i.domain == domain), None)

    def last_booked(self, domain: str | None = None) -> Intent | None:
        booked = [
            intent
            for intent in self.intents
            if intent.status == "booked" and domain in (None, intent.domain)
        ]
        return booked[-1] if booked else None


_DIALOGUE_FIELDS = tuple(f.name for f in dataclasses.fields(Dialogue))
_INTENT_FIELDS = tuple(f.name for f in dataclasses.fields(Intent))


def spans_of(value: Any) -> list[Span]:
    return [(int(start), int(end)) for start, end in value]


def effective_slots(dialogue: Dialogue, intent: Intent) -> dict[str, Any]:
    """The intent's slots with the defaults a hotel takes from the trip before it."""
    slots = dict(intent.slots)
    if intent.domain != "hotel":
        return slots
    index = dialogue.intents.index(intent)
    trip = next(
        (i for i in reversed(dialogue.intents[:index]) if i.is_trip and i.status != "dropped"),
        None,
    )
    if trip is not None:
        if "city" not in slots and "to_city" in trip.slots:
            slots["city"] = trip.slots["to_city"]
        if "check_in" not in slots and "date" in trip.slots:
            slots["check_in"] = trip.slots["date"]
    if "nights" not in slots and "check_out" in slots and "check_in" in slots:
        nights = (
            dt.date.fromisoformat(slots["check_out"]) - dt.date.fromisoformat(slots["check_in"])
        ).days
        if nights > 0:
            slots["nights"] = nights
    return slots
