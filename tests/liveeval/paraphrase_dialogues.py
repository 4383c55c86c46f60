"""Paraphrased dialogues the way real judges talk, replayed against the reference system.

``paraphrases/dialogues.json`` holds scripted dialogues in Chinese and English with the goal
each must reach: answers that do not answer ("好的" to "which time?"), abbreviations and
misspellings ("tmrw", "tomorow"), slots given one at a time, a city changed mid-way, time
windows, and a refusal before the confirmation. As with the scripted judges, every line is
sent whatever the system answered. A dialogue is completed when its goal is met and nothing
else was booked.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from liveeval.booking.goals import goal_met
from liveeval.booking.offers import BookingReceipt
from liveeval.systems.reference import turn as reference
from tests.liveeval.memory_world import Conversation, MemoryWorld

DIALOGUES = Path(__file__).resolve().parent / "paraphrases" / "dialogues.json"
TODAY = dt.date(2026, 12, 1)


@dataclass(frozen=True)
class Paraphrase:
    key: str
    lang: str
    what: str
    goal: dict[str, Any]
    utterances: list[str]


@dataclass(frozen=True)
class Outcome:
    paraphrase: Paraphrase
    completed: bool
    transcript: list[tuple[str, str]]


@dataclass
class ActiveBooking:
    """A receipt as goal checking reads a stored booking."""

    reference: str
    domain: str
    option: str
    price: int
    details: Any
    status: str = "active"

    @classmethod
    def of(cls, receipt: BookingReceipt) -> ActiveBooking:
        return cls(
            receipt.reference, receipt.domain, receipt.option, receipt.price, receipt.details
        )


def load() -> list[Paraphrase]:
    return [Paraphrase(**row) for row in json.loads(DIALOGUES.read_text(encoding="utf-8"))]


def replay(paraphrase: Paraphrase) -> Outcome:
    world = MemoryWorld(TODAY)
    chat = Conversation(reference.respond, world, default_lang=paraphrase.lang)
    transcript = [(text, chat.say(text).text) for text in paraphrase.utterances]
    booked = [ActiveBooking.of(receipt) for receipt in world.active()]
    intents = len(paraphrase.goal["intents"])
    completed = len(booked) == intents and goal_met(paraphrase.goal, booked, TODAY)
    return Outcome(paraphrase, completed, transcript)


def completion_rate(outcomes: list[Outcome]) -> float:
    return sum(outcome.completed for outcome in outcomes) / len(outcomes)
