"""The ``openai`` system kind: a scripted model books through the real booking functions.

The model is the strict fake endpoint of ``tests/fake_openai.py``, reached by the
real SDK over HTTP; its answers are computed from what the agent sends it, so the
flight it books is the one its own search found.
"""

from __future__ import annotations

import io
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from asgiref.sync import async_to_sync
from django.core.management import CommandError, call_command

from evalsite.models import LLMCall
from liveeval.booking.goals import goal_met
from liveeval.booking.world import SessionWorld
from liveeval.models import Booking, ChatSession, DialogueSystem
from liveeval.systems.base import Reply, SystemContext, SystemUnavailable
from liveeval.systems.openai import (
    DEFAULT_SYSTEM_PROMPT,
    TOOLS,
    AgentConfig,
    LLMAgent,
    conversation,
)
from tests.fake_openai import (
    Answer,
    FakeOpenAI,
    fake_openai_server,  # noqa: F401
    reply,
    status,
    tool_calls,
    tool_result,
)
from tests.liveeval.test_booking_api import FLIGHT_GOAL, TODAY, open_session, tiny_world

T = TypeVar("T")
UNUSED_URL = "http://127.0.0.1:9/v1"
SEARCH = {"from_city": "北京", "to_city": "上海", "date": "2026-12-02", "depart_before": "12:00"}


def run(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine as management commands do, so database work stays on this thread."""

    async def main() -> T:
        return await make()

    return async_to_sync(main)()


def agent_settings(server: FakeOpenAI, **extra: Any) -> dict[str, Any]:
    return {"base_url": server.base_url, "model": server.model, **extra}


def context_for(session: ChatSession, text: str) -> SystemContext:
    return SystemContext(
        session_id=session.pk,
        token=session.token,
        lang=session.lang,
        today=session.today,
        turn=1,
        history=[{"role": "user", "text": text}],
        world=SessionWorld(session),
        state=dict(session.state),
    )


def ask(server: FakeOpenAI, session: ChatSession, text: str, **extra: Any) -> Reply:
    agent = LLMAgent(agent_settings(server, **extra))
    return run(lambda: agent.respond(context_for(session, text), text))


def first_flight_offer(body: dict[str, Any]) -> Answer:
    flights = tool_result(body, "search_flights")["flights"]
    offer = flights[0]
    price = offer["cabins"]["economy"]["price"]
    return reply(f"{offer['number']} {offer['depart']} 起飞，经济舱 {price} 元。要预订吗？")


def book_what_was_found(body: dict[str, Any]) -> Answer:
    # The search ran in the previous turn: its result must have been put back in place.
    offer = tool_result(body, "search_flights")["flights"][0]
    return tool_calls(("book", {"domain": "flight", "item_id": offer["id"], "option": "economy"}))


def confirm_booking(body: dict[str, Any]) -> Answer:
    booking = tool_result(body, "book")["booking"]
    return reply(f"已为您预订，订单号 {booking['reference']}。还需要别的吗？")


@pytest.mark.django_db
def test_talk_drives_an_agent_that_searches_then_books_and_meets_the_goal(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    world = tiny_world()
    call_command(
        "add_system",
        "agent",
        "--kind",
        "openai",
        "--base-url",
        fake_openai.base_url,
        "--model",
        fake_openai.model,
        stdout=io.StringIO(),
    )
    fake_openai.script(
        tool_calls(("search_flights", SEARCH)),
        first_flight_offer,
        book_what_was_found,
        confirm_booking,
        reply("好的，祝您旅途愉快，再见！"),
    )
    goal = tmp_path / "goal.json"
    goal.write_text(json.dumps(FLIGHT_GOAL, ensure_ascii=False), encoding="utf-8")
    out = io.StringIO()

    call_command(
        "talk",
        "agent",
        "--today",
        TODAY.isoformat(),
        "--goal",
        str(goal),
        stdin=io.StringIO("明天上午从北京飞上海\n好的\n没有了，谢谢\n"),
        stdout=out,
    )

    lines = out.getvalue().splitlines()
    assert lines[0] == "R: CA1501 08:00 起飞，经济舱 800 元。要预订吗？"
    booking = Booking.objects.get()
    assert lines[1] == f"R: 已为您预订，订单号 {booking.reference}。还需要别的吗？"
    assert json.loads(lines[-1])["completed"] is True
    session = ChatSession.objects.get(system__slug="agent")
    assert (booking.session_id, booking.item_id) == (session.pk, world.morning.pk)
    assert goal_met(FLIGHT_GOAL, session.bookings.all(), TODAY)
    assert LLMCall.objects.filter(purpose=f"liveeval agent, session {session.pk}").count() == 5


@pytest.mark.django_db
def test_each_request_carries_the_prompt_the_dialogue_and_the_tools(
    fake_openai: FakeOpenAI,
) -> None:
    tiny_world()
    session = open_session(kind="openai")
    fake_openai.script(tool_calls(("search_flights", SEARCH)), first_flight_offer)

    ask(fake_openai, session, "明天上午从北京飞上海")

    first, second = fake_openai.requests
    assert (first["model"], first["temperature"], first["seed"]) == ("fake-model", 0.0, 42)
    assert [tool["function"]["name"] for tool in first["tools"]] == [
        "search_flights",
        "search_trains",
        "search_hotels",
        "book",
        "cancel",
    ]
    system = first["messages"][0]
    assert system["role"] == "system" and system["content"].startswith(DEFAULT_SYSTEM_PROMPT)
    assert "Today is 2026-12-01 (Tuesday)." in system["content"]
    assert "北京 (Beijing)" in system["content"]
    assert first["messages"][1:] == [{"role": "user", "content": "明天上午从北京飞上海"}]
    assert [message["role"] for message in second["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
    ]


@pytest.mark.django_db
def test_the_tool_calls_of_a_turn_are_kept_for_the_next_turns(fake_openai: FakeOpenAI) -> None:
    tiny_world()
    session = open_session(kind="openai")
    fake_openai.script(tool_calls(("search_flights", SEARCH)), first_flight_offer)
    agent = LLMAgent(agent_settings(fake_openai))
    context = context_for(session, "明天上午从北京飞上海")

    answer = run(lambda: agent.respond(context, "明天上午从北京飞上海"))

    trace = context.state["tool_calls"]["0"]
    assert [message["role"] for message in trace] == ["assistant", "tool"]
    assert json.loads(trace[1]["content"])["flights"][0]["number"] == "CA1501"
    json.dumps(context.state)  # The state is stored as JSON on the session.
    later = SystemContext(
        session_id=session.pk,
        token=session.token,
        lang="zh",
        today=TODAY,
        turn=3,
        history=[
            {"role": "user", "text": "明天上午从北京飞上海"},
            {"role": "system", "text": answer.text},
            {"role": "user", "text": "好的"},
        ],
        world=SessionWorld(session),
        state=context.state,
    )
    config = AgentConfig.from_config(agent_settings(fake_openai))
    roles = [message["role"] for message in conversation(config, later, "好的")]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]


@pytest.mark.django_db
def test_a_refusal_of_the_world_goes_back_to_the_model(fake_openai: FakeOpenAI) -> None:
    world = tiny_world()
    session = open_session(kind="openai")
    sold_out = {"domain": "flight", "item_id": world.noon.pk, "option": "economy"}
    fake_openai.script(
        tool_calls(("book", sold_out), ("search_trains", {"from_city": "北京"})),
        lambda body: reply(
            "MU5101 已售完。" if tool_result(body, "book")["error"]["code"] == "sold_out" else "?"
        ),
    )

    answer = ask(fake_openai, session, "订MU5101")

    assert answer.text == "MU5101 已售完。"
    results = [
        json.loads(message["content"])
        for message in fake_openai.requests[1]["messages"]
        if message["role"] == "tool"
    ]
    assert results[0]["error"]["code"] == "sold_out"
    assert results[1]["error"] == {
        "code": "bad_parameter",
        "message": "to_city is required",
        "field": "to_city",
    }
    assert not Booking.objects.exists()


@pytest.mark.django_db
def test_malformed_or_unknown_tool_calls_are_answered_with_errors(fake_openai: FakeOpenAI) -> None:
    tiny_world()
    session = open_session(kind="openai")
    fake_openai.script(
        tool_calls(("search_hotels", '{"city": "上海", '), ("cancel", {"reference": "FL-ZZZZZZ"})),
        reply("抱歉，请再说一遍。"),
    )

    ask(fake_openai, session, "你好")

    results = [
        json.loads(message["content"])["error"]["code"]
        for message in fake_openai.requests[1]["messages"]
        if message["role"] == "tool"
    ]
    assert results == ["bad_arguments", "not_found"]


@pytest.mark.django_db
def test_it_stops_after_the_maximum_number_of_tool_rounds(fake_openai: FakeOpenAI) -> None:
    tiny_world()
    session = open_session(kind="openai")
    fake_openai.script(*[tool_calls(("search_flights", SEARCH)) for _ in range(3)])

    with pytest.raises(SystemUnavailable, match="still called tools after 2 rounds"):
        ask(fake_openai, session, "明天上午从北京飞上海", max_tool_rounds=2)

    assert len(fake_openai.requests) == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("answers", "reason"),
    [
        ([status(500), status(500)], "the model failed: HTTP 500"),
        ([status(401, message="Incorrect API key")], "the model failed: HTTP 401"),
        ([reply("   ")], "the model answered with no text"),
    ],
)
def test_errors_of_the_model_surface_as_system_unavailable(
    fake_openai: FakeOpenAI, answers: list[Answer], reason: str
) -> None:
    session = open_session(kind="openai")
    fake_openai.script(*answers)
    with pytest.raises(SystemUnavailable) as failure:
        ask(fake_openai, session, "你好", max_attempts=2, backoff=0)
    assert failure.value.reason.startswith(reason)


@pytest.mark.django_db
def test_a_custom_prompt_still_learns_the_date(fake_openai: FakeOpenAI) -> None:
    session = open_session(kind="openai")
    fake_openai.script(reply("Hi!"))
    ask(fake_openai, session, "hello", system_prompt="You are Ada, a terse travel agent.")
    prompt = fake_openai.requests[0]["messages"][0]["content"]
    assert prompt.startswith("You are Ada, a terse travel agent.\n\nToday is 2026-12-01")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ({"base_url": UNUSED_URL}, "model must be a non-empty string"),
        ({"base_url": UNUSED_URL, "model": "m", "max_tool_rounds": 0}, "max_tool_rounds must be"),
        ({"base_url": UNUSED_URL, "model": "m", "system_prompt": ""}, "system_prompt must be"),
        ({"base_url": UNUSED_URL, "model": "m", "api_key_env": "EVALSITE_UNSET"}, "EVALSITE_UNSET"),
    ],
)
def test_a_broken_configuration_fails_the_message_not_the_server(
    config: dict[str, Any], problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVALSITE_UNSET", raising=False)
    session = open_session(kind="openai")
    with pytest.raises(SystemUnavailable) as failure:
        run(lambda: LLMAgent(config).respond(context_for(session, "hi"), "hi"))
    assert problem in failure.value.reason


def test_the_tools_have_strict_schemas() -> None:
    for tool in TOOLS:
        parameters = tool["function"]["parameters"]
        assert parameters["additionalProperties"] is False
        assert set(parameters["required"]) <= set(parameters["properties"])


@pytest.mark.django_db
def test_add_system_adds_an_llm_agent(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are Ada.", encoding="utf-8")
    out = io.StringIO()

    call_command(
        "add_system",
        "gpt-agent",
        "--kind",
        "openai",
        "--base-url",
        "https://api.openai.com/v1",
        "--model",
        "gpt-4o-mini",
        "--api-key-env",
        "OPENAI_API_KEY",
        "--temperature",
        "0.2",
        "--system-prompt-file",
        str(prompt),
        "--alias",
        "System G",
        stdout=out,
    )

    system = DialogueSystem.objects.get(slug="gpt-agent")
    assert (system.kind, system.alias) == ("openai", "System G")
    assert system.config == {
        "base_url": "https://api.openai.com/v1",
        "model": "gpt-4o-mini",
        "api_key_env": "OPENAI_API_KEY",
        "temperature": 0.2,
        "system_prompt": "You are Ada.",
    }
    assert "talk gpt-agent" in out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--model", "m"], "--kind openai needs --base-url"),
        (["--base-url", UNUSED_URL], "--kind openai needs --model"),
        (["--base-url", UNUSED_URL, "--model", "m", "--temperature", "5"], "temperature must be"),
        (
            ["--base-url", UNUSED_URL, "--model", "m", "--endpoint", "http://a/"],
            "--endpoint cannot",
        ),
        (["--base-url", UNUSED_URL, "--model", "m", "--api-key-env", "A-B"], "api_key_env must"),
    ],
)
def test_add_system_refuses_an_agent_that_cannot_work(args: list[str], problem: str) -> None:
    with pytest.raises(CommandError) as failure:
        call_command("add_system", "agent", "--kind", "openai", *args, stdout=io.StringIO())
    assert problem in str(failure.value)
    assert not DialogueSystem.objects.filter(slug="agent").exists()
