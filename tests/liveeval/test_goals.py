"""Goal checking on hand-made bookings: no database, no world."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from evalsite.agreement.phrases import shown
from liveeval.booking.goal_validation import GoalError, resolve_date, validate_goal
from liveeval.booking.goals import describe_bookings, explain_goal, goal_met
from liveeval.booking.models import Booking

TODAY = dt.date(2026, 12, 1)
CARDS = Path(__file__).resolve().parents[2] / "fixtures" / "task_cards.json"


def flight(
    reference: str,
    *,
    depart: str = "08:00",
    date: str = "2026-12-02",
    cabin: str = "economy",
    price: int = 800,
    route: tuple[str, str] = ("北京", "上海"),
    status: str = Booking.Status.ACTIVE,
) -> Booking:
    return Booking(
        reference=reference,
        domain="flight",
        item_id=1,
        option=cabin,
        price=price,
        status=status,
        details={
            "number": "CA1501",
            "from_city": route[0],
            "to_city": route[1],
            "date": date,
            "depart": depart,
        },
    )


def train(reference: str, *, train_type: str, seat: str = "second", price: int = 300) -> Booking:
    return Booking(
        reference=reference,
        domain="train",
        item_id=2,
        option=seat,
        price=price,
        status=Booking.Status.ACTIVE,
        details={
            "number": f"{train_type}21",
            "train_type": train_type,
            "from_city": "北京",
            "to_city": "西安",
            "date": "2026-12-04",
            "depart": "20:30",
        },
    )


def hotel(
    reference: str, *, stars: int = 4, nights: int = 2, total: int = 1031, room: str = "king"
) -> Booking:
    return Booking(
        reference=reference,
        domain="hotel",
        item_id=3,
        option=room,
        price=total,
        status=Booking.Status.ACTIVE,
        details={
            "hotel": "测试酒店",
            "city": "上海",
            "check_in": "2026-12-02",
            "nights": nights,
            "stars": stars,
        },
    )


def goal(*intents: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"intents": [{"domain": domain, "constraints": c} for domain, c in intents]}


MORNING_FLIGHT = (
    "flight",
    {
        "from_city": "北京",
        "to_city": "上海",
        "date": "+1",
        "depart_after": "06:00",
        "depart_before": "13:00",
    },
)
ANY_FLIGHT = ("flight", {"from_city": "北京", "to_city": "上海", "date": "2026-12-02"})
SHANGHAI_STAY = ("hotel", {"city": "上海", "check_in": "+1", "nights": 2})


class TestValidateGoal:
    def test_it_accepts_every_task_card(self) -> None:
        cards = json.loads(CARDS.read_text(encoding="utf-8"))
        parsed = [validate_goal(card["goal"]) for card in cards]
        assert len(parsed) == len(cards) > 20
        first = parsed[0].intents[0]
        assert (first.domain, first.from_city, first.to_city, first.date) == (
            "flight",
            "北京",
            "上海",
            "+1",
        )
        assert first.depart_before == dt.time(13, 0)

    def test_a_hotel_intent_keeps_its_check_in_as_the_date(self) -> None:
        intent = validate_goal(goal(SHANGHAI_STAY)).intents[0]
        assert (intent.city, intent.date, intent.nights) == ("上海", "+1", 2)
        assert intent.day(TODAY) == dt.date(2026, 12, 2)

    @pytest.mark.parametrize(
        ("raw", "message"),
        [
            ([], "list of 'intents'"),
            ({"intents": []}, "at least one intent"),
            ({"intents": [], "extra": 1}, "unknown goal key"),
            (goal(("ship", {"from_city": "北京"})), "domain must be one of"),
            (goal(("flight", {"from_city": "北京", "to_city": "上海"})), "needs date"),
            (goal(("flight", {**ANY_FLIGHT[1], "seat": "second"})), "unknown flight constraint"),
            (goal(("flight", {**ANY_FLIGHT[1], "date": "tomorrow"})), "or an ISO date"),
            (goal(("flight", {**ANY_FLIGHT[1], "date": "2026-02-30"})), "or an ISO date"),
            (goal(("flight", {**ANY_FLIGHT[1], "depart_before": "24:00"})), "HH:MM"),
            (goal(("flight", {**ANY_FLIGHT[1], "to_city": "拉萨"})), "city of the booking world"),
            (goal(("flight", {**ANY_FLIGHT[1], "to_city": "北京"})), "are the same"),
            (goal(("flight", {**ANY_FLIGHT[1], "cabin": "premium"})), "cabin must be one of"),
            (goal(("flight", {**ANY_FLIGHT[1], "max_price": "900"})), "whole number"),
            (goal(("flight", {**ANY_FLIGHT[1], "max_price": True})), "whole number"),
            (goal(("train", {**ANY_FLIGHT[1], "train_type": "X"})), "train_type must be one"),
            (goal(("hotel", {**SHANGHAI_STAY[1], "nights": 0})), "between 1 and 30"),
            (goal(("hotel", {**SHANGHAI_STAY[1], "min_stars": 6})), "between 1 and 5"),
            (goal(("hotel", {"city": "上海"})), "needs check_in"),
        ],
    )
    def test_it_says_what_is_wrong(self, raw: object, message: str) -> None:
        with pytest.raises(GoalError, match=message):
            validate_goal(raw)


def test_dates_are_relative_to_today_or_absolute() -> None:
    assert resolve_date("+0", TODAY) == TODAY
    assert resolve_date("+30", TODAY) == dt.date(2026, 12, 31)
    assert resolve_date("2027-01-04", TODAY) == dt.date(2027, 1, 4)


class TestGoalMet:
    def test_a_fitting_booking_meets_the_goal(self) -> None:
        assert goal_met(goal(MORNING_FLIGHT), [flight("FL-A")], TODAY)

    def test_departure_bounds_are_inclusive(self) -> None:
        assert goal_met(goal(MORNING_FLIGHT), [flight("FL-A", depart="13:00")], TODAY)
        assert goal_met(goal(MORNING_FLIGHT), [flight("FL-A", depart="06:00")], TODAY)
        assert not goal_met(goal(MORNING_FLIGHT), [flight("FL-A", depart="13:05")], TODAY)

    def test_the_date_is_resolved_against_today(self) -> None:
        assert not goal_met(goal(MORNING_FLIGHT), [flight("FL-A")], dt.date(2026, 12, 2))
        assert goal_met(goal(ANY_FLIGHT), [flight("FL-A")], dt.date(2026, 12, 2))

    def test_a_cancelled_booking_does_not_count(self) -> None:
        cancelled = flight("FL-A", status=Booking.Status.CANCELLED)
        assert not goal_met(goal(MORNING_FLIGHT), [cancelled], TODAY)

    def test_no_bookings_meet_nothing(self) -> None:
        assert not goal_met(goal(MORNING_FLIGHT), [], TODAY)

    def test_one_booking_cannot_satisfy_two_intents(self) -> None:
        two_flights = goal(MORNING_FLIGHT, MORNING_FLIGHT)
        assert not goal_met(two_flights, [flight("FL-A")], TODAY)
        assert goal_met(two_flights, [flight("FL-A"), flight("FL-B")], TODAY)

    def test_the_same_flight_booked_twice_satisfies_a_goal_only_once(self) -> None:
        twice = [flight("FL-A"), flight("FL-B")]
        assert goal_met(goal(MORNING_FLIGHT), twice, TODAY)
        assert not goal_met(goal(MORNING_FLIGHT, SHANGHAI_STAY), twice, TODAY)
        assert goal_met(goal(MORNING_FLIGHT, SHANGHAI_STAY), [*twice, hotel("HT-C")], TODAY)

    def test_the_pairing_does_not_depend_on_booking_order(self) -> None:
        # Greedily, the loose intent would take the morning flight and starve the strict one.
        bookings = [flight("FL-AM", depart="08:00"), flight("FL-PM", depart="16:00")]
        assert goal_met(goal(ANY_FLIGHT, MORNING_FLIGHT), bookings, TODAY)
        assert goal_met(goal(ANY_FLIGHT, MORNING_FLIGHT), bookings[::-1], TODAY)

    def test_cabin_price_and_route_must_fit(self) -> None:
        business = ("flight", {**MORNING_FLIGHT[1], "cabin": "business", "max_price": 3000})
        assert goal_met(goal(business), [flight("FL-A", cabin="business", price=3000)], TODAY)
        assert not goal_met(goal(business), [flight("FL-A", cabin="business", price=3010)], TODAY)
        assert not goal_met(goal(business), [flight("FL-A", cabin="economy", price=800)], TODAY)
        reversed_route = flight("FL-A", route=("上海", "北京"))
        assert not goal_met(goal(MORNING_FLIGHT), [reversed_route], TODAY)

    def test_train_type_k_means_any_classic_train(self) -> None:
        sleeper = (
            "train",
            {
                "from_city": "北京",
                "to_city": "西安",
                "date": "+3",
                "train_type": "K",
                "seat": "hard_sleeper",
            },
        )
        for train_type in ("K", "Z", "T"):
            assert goal_met(
                goal(sleeper), [train("TR-A", train_type=train_type, seat="hard_sleeper")], TODAY
            )
        assert not goal_met(goal(sleeper), [train("TR-A", train_type="G")], TODAY)
        high_speed = ("train", {**sleeper[1], "train_type": "G", "seat": "second"})
        assert not goal_met(goal(high_speed), [train("TR-A", train_type="D")], TODAY)

    def test_a_hotel_limit_is_on_the_mean_night(self) -> None:
        # 1031 for two nights is 515.5 a night, which is over 515 and within 516.
        assert goal_met(
            goal(("hotel", {**SHANGHAI_STAY[1], "max_price": 516})), [hotel("H")], TODAY
        )
        assert not goal_met(
            goal(("hotel", {**SHANGHAI_STAY[1], "max_price": 515})), [hotel("H")], TODAY
        )

    def test_hotel_stars_nights_and_room_must_fit(self) -> None:
        four_stars = goal(("hotel", {**SHANGHAI_STAY[1], "min_stars": 4, "room_type": "king"}))
        assert goal_met(four_stars, [hotel("H", stars=5)], TODAY)
        assert not goal_met(four_stars, [hotel("H", stars=3)], TODAY)
        assert not goal_met(four_stars, [hotel("H", nights=3)], TODAY)
        assert not goal_met(four_stars, [hotel("H", room="twin")], TODAY)

    def test_any_length_of_stay_fits_when_nights_are_not_given(self) -> None:
        stay = goal(("hotel", {"city": "上海", "check_in": "+1"}))
        assert goal_met(stay, [hotel("H", nights=5)], TODAY)


class TestExplainGoal:
    def test_it_names_the_booking_of_each_met_intent(self) -> None:
        outcomes = explain_goal(
            goal(MORNING_FLIGHT, SHANGHAI_STAY), [hotel("HT-1"), flight("FL-1")], TODAY
        )
        assert [(o.met, o.booking) for o in outcomes] == [(True, "FL-1"), (True, "HT-1")]
        assert str(outcomes[0]) == "✓ flight 北京→上海 2026-12-02, departing 06:00–13:00: FL-1"

    def test_it_says_when_nothing_of_the_domain_was_booked(self) -> None:
        outcome = explain_goal(goal(SHANGHAI_STAY), [flight("FL-1")], TODAY)[0]
        assert not outcome.met
        assert outcome.reason == "no active hotel booking"
        assert str(outcome) == "✗ hotel 上海 from 2026-12-02, 2 night(s): no active hotel booking"

    def test_it_points_at_a_cancelled_booking_that_fit(self) -> None:
        cancelled = flight("FL-9", status=Booking.Status.CANCELLED)
        outcome = explain_goal(goal(MORNING_FLIGHT), [cancelled], TODAY)[0]
        assert outcome.reason == "FL-9 fit but was cancelled"

    def test_it_lists_what_the_closest_booking_breaks(self) -> None:
        bookings = [
            flight("FL-FAR", depart="20:00", date="2026-12-03"),
            flight("FL-NEAR", depart="14:00"),
        ]
        outcome = explain_goal(goal(MORNING_FLIGHT), bookings, TODAY)[0]
        assert outcome.closest == "FL-NEAR"
        assert [(m.constraint, m.wanted, m.booked) for m in outcome.mismatches] == [
            ("depart_before", "≤ 13:00", "14:00")
        ]
        assert outcome.reason.endswith(
            "FL-NEAR, breaks depart_before: wanted ≤ 13:00, booked 14:00"
        )

    def test_it_says_when_the_fitting_booking_is_taken(self) -> None:
        outcomes = explain_goal(goal(MORNING_FLIGHT, MORNING_FLIGHT), [flight("FL-1")], TODAY)
        assert [o.booking for o in outcomes] == ["FL-1", None]
        assert outcomes[1].reason == "the bookings that fit (FL-1) already satisfy other intents"

    def test_a_chinese_reader_reads_the_explanation_in_chinese(self) -> None:
        met, missing = explain_goal(goal(MORNING_FLIGHT, SHANGHAI_STAY), [flight("FL-1")], TODAY)
        bookings = [flight("FL-NEAR", depart="14:00")]
        (broken,) = explain_goal(goal(MORNING_FLIGHT), bookings, TODAY)
        with translation.override("zh-hans"):
            assert shown(met.phrase()) == ("✓ 航班 北京→上海 2026-12-02，06:00–13:00 出发：FL-1")
            assert shown(missing.phrase()) == (
                "✗ 酒店 上海，2026-12-02 入住，2 晚：没有有效的酒店预订"
            )
            assert shown(broken.phrase()).endswith(
                "最接近的 FL-NEAR 不满足：depart_before：要求 ≤ 13:00，实际 14:00"
            )
        with translation.override("en"):
            assert shown(missing.phrase()) == str(missing)

    def test_classes_and_room_types_read_as_people_say_them(self) -> None:
        """A flight's "first" is 头等舱 and a train's is 一等座; raw option keys never show."""
        train = ("train", {"from_city": "北京", "to_city": "上海", "date": "+1", "seat": "first"})
        plane = ("flight", {"from_city": "北京", "to_city": "上海", "date": "+1", "cabin": "first"})
        room = ("hotel", {"city": "上海", "check_in": "+1", "room_type": "king"})
        outcomes = explain_goal(goal(train, plane, room), [], TODAY)
        with translation.override("en"):
            said = [shown(outcome.phrase()) for outcome in outcomes]
        assert "first-class seat" in said[0] and "first class" in said[1]
        assert "king room" in said[2]
        with translation.override("zh-hans"):
            said = [shown(outcome.phrase()) for outcome in outcomes]
        assert "一等座" in said[0] and "头等舱" in said[1] and "大床房" in said[2]
        assert not any("first" in text or "king" in text for text in said)


def test_bookings_are_described_for_people() -> None:
    described = describe_bookings([flight("FL-1"), hotel("HT-2", total=1031)])
    assert described[0] == {
        "reference": "FL-1",
        "domain": "flight",
        "option": "economy",
        "price": 800,
        "status": "active",
        "summary": "FL-1 flight CA1501 北京→上海 2026-12-02 08:00 economy, 800 yuan (active)",
    }
    assert described[1]["summary"] == "HT-2 hotel 测试酒店 2026-12-02 × 2 king, 1031 yuan (active)"
