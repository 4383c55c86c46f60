"""Every task card can be met in the generated world, whatever weekday the dialogue starts on.

One world of 26 days from 2026-12-01 is built for the module. A day of the world
depends only on the seed and its date (test_generator checks this), so this world
holds exactly the days that worlds built from each of 2026-12-01 (a Tuesday) to
2026-12-07 (a Monday) would give those cards: every weekday is tried as "today".
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from liveeval.booking.goal_satisfiability import check_goal_satisfiable, offers_for_intent
from liveeval.booking.goal_validation import validate_goal
from liveeval.booking.goals import goal_met
from liveeval.booking.offers import Fare, FlightOffer, HotelOffer, TrainOffer
from liveeval.booking.reservations import book
from liveeval.booking.store import build_world, delete_world
from liveeval.booking.timetable import world_dates
from liveeval.models import ChatSession, DialogueSystem

CARDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[2] / "fixtures" / "task_cards.json").read_text("utf-8")
)
FIRST_START = dt.date(2026, 12, 1)
STARTS = world_dates(FIRST_START, 7)
# The furthest a card reaches is a two-night stay from "+18", i.e. day 19 after the last start.
DAYS = 6 + 20


@pytest.fixture(scope="module")
def december(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    with django_db_blocker.unblock():
        build_world(world_dates(FIRST_START, DAYS))
    yield
    with django_db_blocker.unblock():
        delete_world()


def cheapest(fares: dict[str, Fare]) -> str:
    return min((fare.price, name) for name, fare in fares.items() if fare.seats_left > 0)[1]


def book_first_offer(session: ChatSession, goal: dict[str, Any]) -> None:
    """Book what a plain policy would: the first offer, in the asked-for or cheapest class."""
    for intent in validate_goal(goal).intents:
        offer = offers_for_intent(intent, session.today)[0]
        if isinstance(offer, FlightOffer):
            book(session, "flight", offer.id, intent.cabin or cheapest(offer.cabins))
        elif isinstance(offer, TrainOffer):
            book(session, "train", offer.id, intent.seat or cheapest(offer.seats))
        else:
            assert isinstance(offer, HotelOffer)
            room = intent.room_type or cheapest(offer.rooms)
            book(session, "hotel", offer.id, room, check_in=offer.check_in, nights=offer.nights)


def test_the_cards_reach_no_further_than_the_world() -> None:
    furthest = 0
    for card in CARDS:
        for intent in validate_goal(card["goal"]).intents:
            last_night = (intent.nights or 1) - 1 if intent.domain == "hotel" else 0
            furthest = max(furthest, (intent.day(FIRST_START) - FIRST_START).days + last_night)
    assert furthest < DAYS - (len(STARTS) - 1)


@pytest.mark.django_db
@pytest.mark.parametrize("card", CARDS, ids=[card["key"] for card in CARDS])
def test_every_card_can_be_met_from_every_weekday(december: None, card: dict[str, Any]) -> None:
    system = DialogueSystem.objects.create(
        slug="satisfiable", name="Satisfiable", alias="System S", kind="reference"
    )
    for today in STARTS:
        assert check_goal_satisfiable(card["goal"], today) == [], today
        session = ChatSession.objects.create(
            system=system, kind=ChatSession.Kind.SANDBOX, today=today
        )
        book_first_offer(session, card["goal"])
        assert goal_met(card["goal"], session.bookings.all(), today), today


@pytest.mark.django_db
def test_it_reports_what_the_world_cannot_offer(december: None) -> None:
    impossible = {
        "intents": [
            {
                "domain": "flight",
                "constraints": {"from_city": "北京", "to_city": "上海", "date": "+1"},
            },
            {
                "domain": "train",
                "constraints": {
                    "from_city": "北京",
                    "to_city": "上海",
                    "date": "+1",
                    "train_type": "G",
                    "seat": "hard_sleeper",
                },
            },
            {
                "domain": "hotel",
                "constraints": {"city": "上海", "check_in": "2026-11-30", "nights": 1},
            },
            {
                "domain": "hotel",
                "constraints": {"city": "上海", "check_in": "+40", "nights": 1},
            },
        ]
    }
    problems = check_goal_satisfiable(impossible, FIRST_START)
    assert problems == [
        "intent 2 (train 北京→上海 2026-12-02, hard sleeper, type G): "
        "nothing in the booking world fits",
        "intent 3 (hotel 上海 from 2026-11-30, 1 night(s)): its date is before 2026-12-01",
        "intent 4 (hotel 上海 from 2027-01-10, 1 night(s)): nothing in the booking world fits",
    ]
