"""Dialogues with the baseline system: keyword lookup in the current message only.

Tomorrow on 北京→上海 in the in-memory world, CA1006 leaves at 07:30 for 440 yuan in economy
(see test_reference_policy for the arithmetic).
"""

from __future__ import annotations

import datetime as dt

import pytest

from liveeval.systems import baseline
from tests.liveeval.memory_world import Conversation, MemoryWorld

TODAY = dt.date(2025, 5, 14)
TOMORROW = TODAY + dt.timedelta(days=1)


@pytest.fixture
def world() -> MemoryWorld:
    return MemoryWorld(TODAY)


@pytest.fixture
def chat(world: MemoryWorld) -> Conversation:
    return Conversation(baseline.respond, world)


def test_it_books_a_request_given_in_one_sentence_after_confirmation(
    chat: Conversation, world: MemoryWorld
) -> None:
    proposal = chat.say("明天上午从北京到上海的机票")
    assert proposal.text == "找到：CA1006（中国国航）07:30–09:32，经济舱8.0折，440元。要预订吗？"

    booked = chat.say("好的")

    (receipt,) = world.active()
    assert (receipt.details["number"], receipt.price) == ("CA1006", 440)
    assert booked.text == f"已预订，订单号：{receipt.reference}。"
    assert chat.state == {"lang": "zh"}


def test_it_answers_an_incomplete_request_with_the_fixed_prompt(chat: Conversation) -> None:
    assert chat.say("我要订机票").text == baseline.PROMPT_ZH
    assert chat.state == {"lang": "zh"}


def test_it_does_not_remember_slots_from_earlier_messages(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("明天的机票")
    reply = chat.say("从北京到上海")
    assert reply.text == baseline.PROMPT_ZH
    assert world.bookings == {}


def test_it_uses_the_constraints_in_the_same_message(
    chat: Conversation, world: MemoryWorld
) -> None:
    # Tomorrow's 北京→上海 G trains after 15:00: 15:30, 18:30, 20:00; first class 0.74 × 500 km.
    chat.say("明天下午3点以后从北京到上海的高铁，一等座")
    chat.say("确认")
    (receipt,) = world.active()
    assert (receipt.details["depart"], receipt.option, receipt.price) == ("15:30", "first", 370)


def test_it_books_a_hotel_described_in_one_sentence(chat: Conversation, world: MemoryWorld) -> None:
    chat.say("I need a hotel in Shanghai from tomorrow for 2 nights, at least 4 stars")
    reply = chat.say("yes")
    (receipt,) = world.active()
    assert (receipt.details["stars"], receipt.details["nights"]) == (4, 2)
    assert receipt.details["check_in"] == TOMORROW.isoformat()
    assert reply.text == f"Booked. Your booking reference is {receipt.reference}."


def test_it_never_books_twice_on_a_second_confirmation(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("明天上午从北京到上海的机票")
    chat.say("好的")
    again = chat.say("好的")
    assert len(world.bookings) == 1
    assert again.text == baseline.PROMPT_ZH


def test_it_says_so_when_nothing_matches() -> None:
    chat = Conversation(baseline.respond, MemoryWorld(TODAY, generated=False))
    reply = chat.say("明天从北京到上海的机票")
    assert reply.text == "没有找到符合条件的结果。"


def test_it_ends_on_a_farewell(chat: Conversation) -> None:
    reply = chat.say("没有了，再见")
    assert (reply.text, reply.end) == ("再见！", True)


def test_it_answers_in_the_language_of_the_message(chat: Conversation) -> None:
    reply = chat.say("I want to book something")
    assert (reply.lang, reply.text) == ("en", baseline.PROMPT_EN)
