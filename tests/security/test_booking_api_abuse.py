"""The booking API under abuse: hostile bodies, hoarding, floods and closed campaigns."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings

from evalsite.archive import archive, restore
from liveeval.booking.models import Booking, Flight, FlightCabin
from liveeval.booking.offers import BookingError
from liveeval.booking.world import SessionWorld, world_for_token
from liveeval.campaigns import close_campaign
from liveeval.models import ChatSession
from tests.liveeval.conftest import judged_session, make_campaign, make_system
from tests.liveeval.test_booking_api import (
    API,
    TinyWorld,
    error_of,
    get,
    open_session,
    post,
)

pytestmark = pytest.mark.django_db


def raw_post(session: ChatSession, endpoint: str, body: bytes) -> Any:
    return Client().post(
        API + endpoint,
        body,
        content_type="application/json",
        headers={"Authorization": f"Bearer {session.token}"},
    )


def test_a_deeply_nested_body_is_a_400_not_a_500(world: TinyWorld) -> None:
    session = open_session()
    response = raw_post(session, "book", b'{"domain": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    assert response.status_code == 400
    assert "nested too deeply" in error_of(response)["message"]


@pytest.mark.parametrize("value", [{"a": [1]}, [["x"]]])
def test_a_nested_parameter_is_a_400(world: TinyWorld, value: object) -> None:
    session = open_session()
    response = post(session, "book", {"domain": value, "item_id": 1, "option": "economy"})
    assert response.status_code == 400 and error_of(response)["field"] == "domain"


def test_nul_in_parameters_is_a_400(world: TinyWorld) -> None:
    session = open_session()
    searched = get(session, "flights", from_city="北京\x00", to_city="上海", date="2026-12-02")
    assert searched.status_code == 400 and "NUL" in error_of(searched)["message"]
    booked = post(session, "book", {"domain": "flight", "item_id": 1, "option": "econ\x00omy"})
    assert booked.status_code == 400 and "NUL" in error_of(booked)["message"]
    surrogate = raw_post(session, "cancel", b'{"reference": "\\ud800"}')
    assert surrogate.status_code == 400 and "surrogate" in error_of(surrogate)["message"]


def test_one_conversation_holds_at_most_the_cap(world: TinyWorld, settings: Settings) -> None:
    settings.MAX_ACTIVE_BOOKINGS = 3
    session = open_session()
    answers = [
        post(
            session, "book", {"domain": "flight", "item_id": world.evening.pk, "option": "economy"}
        )
        for _ in range(5)
    ]
    assert [answer.status_code for answer in answers] == [201, 201, 201, 409, 409]
    assert error_of(answers[3])["code"] == "booking_limit"
    assert Booking.objects.filter(session=session, status="active").count() == 3
    # Cancelling one frees a place under the cap.
    reference = answers[0].json()["booking"]["reference"]
    assert post(session, "cancel", {"reference": reference}).status_code == 200
    again = {"domain": "flight", "item_id": world.evening.pk, "option": "economy"}
    assert post(session, "book", again).status_code == 201


def test_a_token_is_rate_limited_with_a_clear_429(world: TinyWorld, settings: Settings) -> None:
    settings.BOOKING_API_CALLS_PER_MINUTE = 4
    session, other = open_session(), open_session()
    statuses = [get(session, "cities").status_code for _ in range(6)]
    assert statuses == [200, 200, 200, 200, 429, 429]
    refused = get(session, "cities")
    assert error_of(refused)["code"] == "too_many_requests"
    assert "more than 4 calls a minute" in error_of(refused)["message"]
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert get(other, "cities").status_code == 200  # the limit is per token


def test_closing_a_campaign_ends_its_sessions_and_their_tokens(
    world: TinyWorld, judge: User
) -> None:
    campaign = make_campaign()
    session = judged_session(judge, make_system("test-echo", "api-x", "System X"), campaign)
    assert get(session, "cities").status_code == 200

    assert close_campaign(campaign) == 1

    session.refresh_from_db()
    assert session.status == ChatSession.Status.ENDED
    assert session.end_reason == ChatSession.EndReason.CAMPAIGN_CLOSED
    refused = post(session, "book", {"domain": "flight", "item_id": 1, "option": "economy"})
    assert refused.status_code == 403 and error_of(refused)["code"] == "session_not_open"
    assert json.dumps(error_of(refused))


def test_an_archived_campaigns_conversations_cannot_book(world: TinyWorld, judge: User) -> None:
    campaign = make_campaign()
    session = judged_session(judge, make_system("test-echo", "api-x", "System X"), campaign)
    seats = economy_seats_left(world.evening)
    archive(campaign)
    refused = post(
        session, "book", {"domain": "flight", "item_id": world.evening.pk, "option": "economy"}
    )
    assert refused.status_code == 403 and error_of(refused)["code"] == "campaign_archived"
    assert economy_seats_left(world.evening) == seats
    assert get(session, "cities").status_code == 403
    restore(campaign)
    assert get(session, "cities").status_code == 200


def economy_seats_left(flight: Flight) -> int:
    return FlightCabin.objects.get(flight=flight, cabin="economy").seats_left


def test_a_booking_begun_just_before_the_campaign_closes_is_refused(
    world: TinyWorld, judge: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = make_campaign()
    session = judged_session(judge, make_system("test-echo", "api-x", "System X"), campaign)
    seats = economy_seats_left(world.evening)

    def authenticated_then_closed(token: str) -> SessionWorld | None:
        # The token is checked while the conversation is open; the campaign closes before
        # the booking itself runs.
        found = world_for_token(token)
        close_campaign(campaign)
        return found

    monkeypatch.setattr("liveeval.api.auth.world_for_token", authenticated_then_closed)
    refused = post(
        session, "book", {"domain": "flight", "item_id": world.evening.pk, "option": "economy"}
    )
    assert refused.status_code == 403 and error_of(refused)["code"] == "session_not_open"
    assert not Booking.objects.filter(session=session).exists()
    assert economy_seats_left(world.evening) == seats


def test_a_system_holding_an_ended_conversations_world_cannot_book(
    world: TinyWorld, judge: User
) -> None:
    campaign = make_campaign()
    session = judged_session(judge, make_system("test-echo", "api-x", "System X"), campaign)
    held = world_for_token(session.token)
    assert held is not None
    close_campaign(campaign)
    with pytest.raises(BookingError) as refused:
        held.book("flight", world.evening.pk, "economy")
    assert refused.value.code == "session_not_open"
    assert not Booking.objects.filter(session=session).exists()


def test_guessed_tokens_are_rate_limited_per_address(world: TinyWorld, settings: Settings) -> None:
    settings.BOOKING_API_BAD_TOKENS_PER_MINUTE = 3
    session = open_session()

    def cities_with(token: str, address: str) -> Any:
        return Client(REMOTE_ADDR=address).get(
            API + "cities", headers={"Authorization": f"Bearer {token}"}
        )

    guesses = [cities_with(f"guess-{n}", "10.2.2.2").status_code for n in range(4)]
    assert guesses == [401, 401, 401, 429]
    # Beyond the limit even the right token is not looked up from that address.
    refused = cities_with(session.token, "10.2.2.2")
    assert refused.status_code == 429 and error_of(refused)["code"] == "too_many_requests"
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert cities_with(session.token, "10.3.3.3").status_code == 200
