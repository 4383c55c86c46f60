"""Whether a task goal can be met in the booking world at all: the offers that fit each
intent, and what stands in the way when none do.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from liveeval.booking.goal_validation import Goal, Intent, validate_goal
from liveeval.booking.offers import (
    Offer,
)
from liveeval.booking.search import (
    search_flights,
    search_hotels,
    search_trains,
)


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
