"""What one reply of the reference system costs on the live path, beyond the storing echo's work.

The live chat's capacity with the reference system is measured against a storing echo
(``bench/live_capacity.py``, docs/benchmarks.md). These tests hold the work removed from
the reference path: its database statements per message, and the understanding's word
tables, which are built once per process rather than once per message.
"""

from __future__ import annotations

import dataclasses

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test.utils import CaptureQueriesContext

from liveeval.booking.store import build_world
from liveeval.booking.timetable import world_dates
from liveeval.conversation import exchange
from liveeval.models import ChatSession, DialogueSystem
from liveeval.systems.reference.state import Dialogue
from liveeval.systems.understanding import scanner
from testing.live_load import UTTERANCES
from tests.liveeval.scripted_judges import DEFAULT_TODAY

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")

STATEMENTS_PER_MESSAGE = 6
"""Claiming the session and storing the message (an update, the session and its history read,
an insert), then storing the reply and releasing the session (an update, an insert)."""

BUDGET = {
    "search": STATEMENTS_PER_MESSAGE + 1,
    "book": STATEMENTS_PER_MESSAGE + 8,
    "other": STATEMENTS_PER_MESSAGE,
}
"""A search is one query over the fares (or a hotel's nights). A booking locks the session,
counts its bookings, reads the item and its class, takes the seat (a room for each night of
the dialogue's two-night stay) and records the booking."""


@pytest.fixture
def reference_session(db: None) -> ChatSession:
    build_world(world_dates(DEFAULT_TODAY, 3))
    return ChatSession.objects.create(
        system=DialogueSystem.objects.get(slug="reference"),
        kind=ChatSession.Kind.TALK,
        lang="zh",
        today=DEFAULT_TODAY,
    )


def statements(queries: list[dict[str, str]]) -> list[str]:
    return [q["sql"] for q in queries if not q["sql"].upper().startswith(TRANSACTION_CONTROL)]


def kind_of(sql: list[str]) -> str:
    if any("liveeval_booking" in s and s.upper().startswith("INSERT") for s in sql):
        return "book"
    if any("liveeval_flightcabin" in s or "liveeval_hotelroom" in s for s in sql):
        return "search"
    return "other"


def test_a_reply_takes_a_bounded_number_of_statements(reference_session: ChatSession) -> None:
    """The benchmark's judge's dialogue (ask, search, cheaper, class, book, hotel...): each
    message's statements stay within its budget, whatever the dialogue's length."""
    seen: dict[str, int] = {}
    for text in UTTERANCES:
        with CaptureQueriesContext(connection) as captured:
            result = async_to_sync(exchange)(reference_session.pk, text, timeout=30)
        assert result.reply is not None, result.failure
        sql = statements(captured.captured_queries)
        kind = kind_of(sql)
        seen[kind] = seen.get(kind, 0) + 1
        assert len(sql) <= BUDGET[kind], (text, kind, "\n".join(s[:90] for s in sql))
    # The dialogue exercised every kind of message the budget names.
    assert set(seen) == set(BUDGET), seen


def test_the_word_tables_are_built_once_not_per_message(reference_session: ChatSession) -> None:
    async_to_sync(exchange)(reference_session.pk, UTTERANCES[0], timeout=30)
    built = scanner._alternation.cache_info().misses
    for text in UTTERANCES[1:]:
        async_to_sync(exchange)(reference_session.pk, text, timeout=30)
    info = scanner._alternation.cache_info()
    assert info.misses == built, info
    assert info.hits > 0, info


def test_the_dialogue_state_is_dumped_as_dataclasses_would(
    reference_session: ChatSession,
) -> None:
    """The state stored after every turn is the one ``dataclasses.asdict`` gave, which the
    faster dump replaced: equal values, and nothing shared with the stored state."""
    for text in UTTERANCES:
        async_to_sync(exchange)(reference_session.pk, text, timeout=30)
        reference_session.refresh_from_db()
        dialogue = Dialogue.load(reference_session.state)
        assert dialogue.dump() == dataclasses.asdict(dialogue)
        assert dialogue.dump() == reference_session.state
    assert reference_session.state["intents"], "the dialogue opened no request"
