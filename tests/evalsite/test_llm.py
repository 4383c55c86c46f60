"""The LLM client against the strict fake endpoint: retries, limits, records, cache, JSON."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any, TypeVar

import httpx
import pytest
from asgiref.sync import async_to_sync

from evalsite.llm.answers import parse_json
from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMConfigError, LLMError
from evalsite.llm.limits import retry_after
from evalsite.llm.record import request_hash
from evalsite.models import LLMCall
from tests.fake_openai import (
    FakeOpenAI,
    broken_body,
    fake_openai_server,  # noqa: F401
    reply,
    slow,
    status,
    tool_calls,
)

T = TypeVar("T")
HELLO = [{"role": "user", "content": "Say hello."}]
ASK_JSON = [
    {"role": "system", "content": 'Answer with a JSON object {"score": 1..5}.'},
    {"role": "user", "content": "Rate this dialogue."},
]


def run(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine the way management commands do, so database work stays on this thread."""

    async def main() -> T:
        return await make()

    return async_to_sync(main)()


class Sleeps(list[float]):
    """Records the waits between retries instead of waiting."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def config(server: FakeOpenAI, **settings: Any) -> LLMConfig:
    return LLMConfig.from_config({"base_url": server.base_url, "model": server.model, **settings})


def client(server: FakeOpenAI, sleeps: Sleeps | None = None, **settings: Any) -> LLMClient:
    return LLMClient(
        config(server, **settings), purpose="test", sleep=sleeps if sleeps is not None else Sleeps()
    )


def score(value: Any) -> int:
    if not isinstance(value, dict) or value.get("score") not in {1, 2, 3, 4, 5}:
        raise ValueError("score must be a whole number from 1 to 5")
    return int(value["score"])


@pytest.mark.django_db
def test_it_sends_the_configured_request_and_records_usage_and_cost(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(reply("Hello!", usage=(1200, 300)))
    llm = client(fake_openai, price_per_1k_prompt="0.5", price_per_1k_completion="1.5")

    completion = run(lambda: llm.chat(HELLO))

    assert completion.content == "Hello!" and not completion.cached
    assert fake_openai.requests == [
        {"model": "fake-model", "messages": HELLO, "temperature": 0.0, "seed": 42}
    ]
    call = LLMCall.objects.get()
    # 1200 × 0.5 / 1000 + 300 × 1.5 / 1000 = 0.6 + 0.45
    assert (call.prompt_tokens, call.completion_tokens, call.cost) == (1200, 300, Decimal("1.05"))
    assert completion.cost == Decimal("1.05")
    assert (call.status, call.attempts, call.purpose, call.cached) == ("ok", 1, "test", False)
    assert call.response == {"role": "assistant", "content": "Hello!"}
    assert call.request == fake_openai.requests[0]


@pytest.mark.django_db
def test_it_records_no_cost_without_a_price(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("Hello!", usage=(7, 3)))
    run(lambda: client(fake_openai).chat(HELLO))
    assert LLMCall.objects.values_list("prompt_tokens", "completion_tokens", "cost").get() == (
        7,
        3,
        None,
    )


@pytest.mark.django_db
def test_it_backs_off_exponentially_on_429_and_5xx(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(status(429), status(500), status(503), reply("at last"))
    sleeps = Sleeps()

    completion = run(lambda: client(fake_openai, sleeps, backoff=0.5).chat(HELLO))

    assert completion.content == "at last"
    assert sleeps == [0.5, 1.0, 2.0]
    assert len(fake_openai.requests) == 4
    assert LLMCall.objects.get().attempts == 4


@pytest.mark.django_db
def test_it_waits_as_long_as_retry_after_asks(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(status(429, retry_after="7"), status(429, retry_after="1000"), reply("ok"))
    sleeps = Sleeps()

    run(lambda: client(fake_openai, sleeps, max_wait=30).chat(HELLO))

    # The second wait is capped by max_wait.
    assert sleeps == [7.0, 30.0]


def test_it_reads_retry_after_as_seconds_or_as_a_date() -> None:
    now = dt.datetime(2026, 12, 1, 8, 0, 0, tzinfo=dt.UTC)
    assert retry_after({"retry-after": "2.5"}, now) == 2.5
    assert retry_after({"retry-after": "Tue, 01 Dec 2026 08:00:12 GMT"}, now) == 12.0
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}, now) == 1.5
    assert retry_after({"retry-after": "soon"}, now) is None
    assert retry_after({}, now) is None


@pytest.mark.django_db
def test_it_gives_up_after_max_attempts_and_records_the_failure(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(status(500), status(500), status(500))
    sleeps = Sleeps()

    with pytest.raises(LLMError, match=r"HTTP 500.*after 3 attempt") as failure:
        run(lambda: client(fake_openai, sleeps, max_attempts=3).chat(HELLO))

    assert failure.value.status == 500
    assert sleeps == [1.0, 2.0]
    call = LLMCall.objects.get()
    assert (call.status, call.attempts) == ("error", 3)
    assert "HTTP 500" in call.error


@pytest.mark.django_db
def test_it_does_not_retry_a_refused_request(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(status(401, message="bad key"))
    sleeps = Sleeps()
    with pytest.raises(LLMError, match="HTTP 401") as failure:
        run(lambda: client(fake_openai, sleeps).chat(HELLO))
    assert failure.value.status == 401
    assert sleeps == []


@pytest.mark.django_db
def test_a_slow_answer_times_out_and_is_retried(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(slow(5.0, reply("too late")), reply("in time"))
    sleeps = Sleeps()

    completion = run(lambda: client(fake_openai, sleeps, timeout=0.5).chat(HELLO))

    assert completion.content == "in time"
    assert sleeps == [1.0]


@pytest.mark.django_db
def test_a_body_that_is_not_json_is_an_error(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(broken_body())
    with pytest.raises(LLMError):
        run(lambda: client(fake_openai).chat(HELLO))
    assert LLMCall.objects.get().status == "error"


@pytest.mark.django_db
def test_a_cache_hit_makes_no_request_and_costs_nothing(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("Hello!", usage=(100, 20)), reply("Bonjour !"))
    settings: dict[str, Any] = {
        "cache": True,
        "price_per_1k_prompt": 1,
        "price_per_1k_completion": 2,
    }

    first = run(lambda: client(fake_openai, **settings).chat(HELLO))
    again = run(lambda: client(fake_openai, **settings).chat(HELLO))
    other = run(
        lambda: client(fake_openai, **settings).chat([{"role": "user", "content": "In French."}])
    )

    assert len(fake_openai.requests) == 2
    assert (again.content, again.cached, again.cost) == ("Hello!", True, Decimal(0))
    assert (first.cached, other.content) == (False, "Bonjour !")
    rows = list(LLMCall.objects.order_by("id").values_list("cached", "prompt_tokens", "cost"))
    assert rows == [
        (False, 100, Decimal("0.14")),
        (True, 0, Decimal(0)),
        (False, 10, Decimal("0.02")),
    ]


@pytest.mark.django_db
def test_the_cache_is_keyed_by_the_exact_request(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("cold"), reply("warm"))
    run(lambda: client(fake_openai, cache=True).chat(HELLO))
    warmer = run(lambda: client(fake_openai, cache=True, temperature=0.7).chat(HELLO))
    assert (warmer.content, warmer.cached) == ("warm", False)
    body = {"model": "m", "messages": HELLO, "temperature": 0.0}
    assert request_hash("http://a/v1", body) != request_hash("http://b/v1", body)
    assert request_hash("http://a/v1", body) == request_hash(
        "http://a/v1", dict(reversed(body.items()))
    )


@pytest.mark.django_db
def test_without_the_cache_every_call_is_a_request(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("one"), reply("two"))
    answers = [run(lambda: client(fake_openai).chat(HELLO)).content for _ in range(2)]
    assert answers == ["one", "two"]


@pytest.mark.django_db
def test_the_concurrency_limit_holds_across_clients_of_one_endpoint(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(*[slow(0.15, reply(f"answer {n}")) for n in range(6)])

    async def six_at_once() -> list[str]:
        clients = [client(fake_openai, concurrency=2) for _ in range(6)]
        completions = await asyncio.gather(*(llm.chat(HELLO) for llm in clients))
        for llm in clients:
            await llm.close()
        return sorted(completion.content for completion in completions)

    assert run(six_at_once) == [f"answer {n}" for n in range(6)]
    assert fake_openai.max_in_flight == 2


@pytest.mark.django_db
def test_it_returns_tool_calls_as_chat_messages(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(tool_calls(("lookup", {"city": "北京"})))
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    completion = run(lambda: client(fake_openai).chat(HELLO, tools=tools))
    (call,) = completion.tool_calls
    assert call["function"] == {"name": "lookup", "arguments": '{"city": "\\u5317\\u4eac"}'}
    assert json.loads(call["function"]["arguments"]) == {"city": "北京"}
    assert call["id"].startswith("call_") and completion.message["content"] is None


@pytest.mark.django_db
def test_a_valid_structured_answer_is_returned(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply('```json\n{"score": 4}\n```'))
    answer = run(lambda: client(fake_openai).complete_json(ASK_JSON, score))
    assert (answer.ok, answer.value) == (True, 4)
    assert fake_openai.requests[0]["response_format"] == {"type": "json_object"}


@pytest.mark.django_db
def test_a_malformed_structured_answer_is_asked_for_again_once(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply('{"score": 4'), reply('{"score": 5}'))

    answer = run(lambda: client(fake_openai).complete_json(ASK_JSON, score))

    assert (answer.ok, answer.value) == (True, 5)
    retry = fake_openai.requests[1]["messages"]
    assert retry[:2] == ASK_JSON
    assert retry[2] == {"role": "assistant", "content": '{"score": 4'}
    assert retry[3]["role"] == "user" and "not valid JSON" in retry[3]["content"]
    assert list(LLMCall.objects.order_by("id").values_list("status", flat=True)) == [
        "invalid",
        "ok",
    ]


@pytest.mark.django_db
def test_a_second_malformed_answer_is_an_error_with_the_raw_text(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply('{"score": 9}'), reply("I would say four."))

    answer = run(lambda: client(fake_openai).complete_json(ASK_JSON, score))

    assert (answer.ok, answer.value, answer.raw) == (False, None, "I would say four.")
    assert "not valid JSON" in answer.error
    first, second = LLMCall.objects.order_by("id")
    assert (first.status, second.status) == ("invalid", "invalid")
    assert "score must be a whole number from 1 to 5" in first.error
    assert second.response["content"] == "I would say four."


@pytest.mark.django_db
def test_a_malformed_answer_is_never_served_from_the_cache(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("nope"), reply("still no"), reply('{"score": 2}'))
    failed = run(lambda: client(fake_openai, cache=True).complete_json(ASK_JSON, score))
    fixed = run(lambda: client(fake_openai, cache=True).complete_json(ASK_JSON, score))
    assert (failed.ok, fixed.value) == (False, 2)


def test_it_reads_json_in_a_fence_or_bare() -> None:
    assert parse_json('  {"a": 1} ') == {"a": 1}
    assert parse_json("```\n[1, 2]\n```") == [1, 2]
    with pytest.raises(ValueError):
        parse_json("score: 4")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"base_url": "localhost:8000", "model": "m"}, "base_url must be an http"),
        ({"base_url": "http://x/v1", "model": ""}, "model must be a non-empty string"),
        ({"base_url": "http://x/v1", "model": "m", "temprature": 0}, "unknown setting"),
        ({"base_url": "http://x/v1", "model": "m", "temperature": 3}, "temperature must be"),
        ({"base_url": "http://x/v1", "model": "m", "seed": "42"}, "seed must be a whole number"),
        ({"base_url": "http://x/v1", "model": "m", "api_key_env": "MY-KEY"}, "api_key_env"),
        (
            {"base_url": "http://x/v1", "model": "m", "price_per_1k_prompt": 1},
            "give both price_per_1k_prompt and price_per_1k_completion",
        ),
        (
            {
                "base_url": "http://x/v1",
                "model": "m",
                "price_per_1k_prompt": -1,
                "price_per_1k_completion": 1,
            },
            "price_per_1k_prompt must be a price",
        ),
    ],
)
def test_it_rejects_a_configuration_that_cannot_work(
    settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(LLMConfigError, match=message):
        LLMConfig.from_config(settings)


def test_a_configuration_keeps_its_defaults() -> None:
    config = LLMConfig.from_config({"base_url": "http://127.0.0.1:11434/v1/", "model": "qwen"})
    assert (config.base_url, config.temperature, config.seed, config.cache) == (
        "http://127.0.0.1:11434/v1",
        0.0,
        42,
        False,
    )
    assert config.api_key() == "no-key-needed"


def test_a_missing_api_key_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALSITE_TEST_KEY", raising=False)
    config = LLMConfig.from_config(
        {"base_url": "http://x/v1", "model": "m", "api_key_env": "EVALSITE_TEST_KEY"}
    )
    with pytest.raises(LLMError, match="EVALSITE_TEST_KEY"):
        config.api_key()
    monkeypatch.setenv("EVALSITE_TEST_KEY", "sk-test")
    assert config.api_key() == "sk-test"


@pytest.mark.django_db
def test_the_fake_refuses_a_tool_message_for_a_call_it_never_made(fake_openai: FakeOpenAI) -> None:
    messages: list[dict[str, Any]] = [
        *HELLO,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_999", "type": "function", "function": {"name": "x", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_999", "content": "{}"},
    ]
    with pytest.raises(LLMError, match="HTTP 400"):
        run(lambda: client(fake_openai).chat(messages))
    assert any("never issued" in problem for problem in fake_openai.take_violations())


def test_the_fake_checks_roles_tools_and_json_mode(fake_openai: FakeOpenAI) -> None:
    body = {
        "model": "gpt-unknown",
        "messages": [{"role": "robot", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "bad name", "parameters": {}}}],
        "response_format": {"type": "json_object"},
    }
    answer = httpx.post(
        f"{fake_openai.base_url}/chat/completions",
        json=body,
        headers={"Authorization": "Bearer k"},
    )
    assert answer.status_code == 400
    (problem,) = fake_openai.take_violations()
    for rule in (
        "model 'gpt-unknown' is not served",
        "unknown role 'robot'",
        "bad function name 'bad name'",
        "parameters must be a JSON schema",
        "needs the word JSON",
    ):
        assert rule in problem


def test_the_fake_wants_every_tool_call_answered_before_the_dialogue_goes_on(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(tool_calls(("lookup", {})))
    tools = [{"type": "function", "function": {"name": "lookup"}}]
    first = httpx.post(
        f"{fake_openai.base_url}/chat/completions",
        json={"model": "fake-model", "messages": HELLO, "tools": tools},
        headers={"Authorization": "Bearer k"},
    ).json()
    assistant = first["choices"][0]["message"]
    unanswered = [*HELLO, assistant, {"role": "user", "content": "And?"}]
    answer = httpx.post(
        f"{fake_openai.base_url}/chat/completions",
        json={"model": "fake-model", "messages": unanswered, "tools": tools},
        headers={"Authorization": "Bearer k"},
    )
    assert answer.status_code == 400
    (problem,) = fake_openai.take_violations()
    assert "are not answered before a user message" in problem
