"""The reference system completes the paraphrased dialogues of real judges."""

from __future__ import annotations

from collections import Counter

from liveeval.systems.reference import turn as reference
from tests.liveeval.memory_world import Conversation, MemoryWorld
from tests.liveeval.paraphrase_dialogues import TODAY, completion_rate, load, replay


def test_the_set_is_wide_enough() -> None:
    dialogues = load()
    assert len(dialogues) >= 100
    assert len({d.key for d in dialogues}) == len(dialogues)
    languages = Counter(d.lang for d in dialogues)
    assert languages["zh"] >= 40 and languages["en"] >= 40


def test_the_reference_system_completes_at_least_95_percent() -> None:
    outcomes = [replay(dialogue) for dialogue in load()]
    failed = [
        f"{o.paraphrase.key} ({o.paraphrase.what}): "
        + " | ".join(f"> {said} < {reply[:80]}" for said, reply in o.transcript)
        for o in outcomes
        if not o.completed
    ]
    assert completion_rate(outcomes) >= 0.95, "\n".join(failed)


def chat() -> tuple[Conversation, MemoryWorld]:
    world = MemoryWorld(TODAY)
    return Conversation(reference.respond, world), world


def test_one_unanswered_time_question_means_any_time_and_options_follow() -> None:
    conversation, _world = chat()
    asked = conversation.say("明天北京到上海的机票").text
    assert "几点出发" in asked
    offered = conversation.say("好的").text
    assert "几点出发" not in offered
    assert "1. " in offered and "2. " in offered


def test_a_cabin_given_instead_of_a_time_is_taken_and_said_back() -> None:
    conversation, world = chat()
    conversation.say("tmrw flight from Beijing to Shanghai")
    offered = conversation.say("business class").text
    assert "business" in offered
    conversation.say("ok")
    assert [receipt.option for receipt in world.active()] == ["business"]


def test_nothing_is_booked_before_a_confirmation() -> None:
    conversation, world = chat()
    conversation.say("flight Beijing to Shanghai tmrw, any time")
    conversation.say("wait, don't book yet")
    assert world.active() == []
    conversation.say("ok go ahead and book it")
    assert len(world.active()) == 1


def test_cancel_that_make_it_hangzhou_switches_the_city() -> None:
    conversation, world = chat()
    conversation.say("flight from Beijing to Shanghai tomorrow")
    switched = conversation.say("cancel that, make it Hangzhou").text
    assert "Hangzhou" in switched
    conversation.say("anytime")
    conversation.say("yes")
    assert [receipt.details["to_city"] for receipt in world.active()] == ["杭州"]


def test_after_9_but_before_noon_is_a_window() -> None:
    conversation, world = chat()
    conversation.say("train from Beijing to Tianjin tmrw")
    conversation.say("after 9 but before noon")
    conversation.say("yes")
    (receipt,) = world.active()
    assert "09:00" <= str(receipt.details["depart"]) <= "12:00"
