"""The ``http`` system kind: the protocol, every failure, and the example bot end to end.

The failures are played by a small stand-in for a team's server in this process.
The example bot of ``examples/http_system/`` runs as a real process of its own and
books through the booking API served by pytest-django's live server, on the test
database, so a whole dialogue held with ``talk`` ends with the task's goal met.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from liveeval.booking.goals import goal_met
from liveeval.booking.offers import World
from liveeval.models import Booking, ChatSession, DialogueSystem, Message
from liveeval.systems.base import Reply, SystemContext, SystemUnavailable
from liveeval.systems.http import HttpConfig, HttpConfigError, HttpSystem, payload
from testing.servers import free_port
from tests.liveeval.test_booking_api import FLIGHT_GOAL, TODAY, tiny_world

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "examples" / "http_system" / "bot.py"

Answer = tuple[int, bytes]


class TeamServer:
    """Stands in for a team's endpoint: records each message and answers as told."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.answer: Callable[[dict[str, Any]], Answer] = lambda message: (200, b"{}")
        self.delay = 0.0
        self._released = threading.Event()
        team = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                team.received.append(message)
                if team.delay:
                    team._released.wait(team.delay)
                status, body = team.answer(message)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except ConnectionError:
                    pass  # EvalSite gave up waiting, as it should.

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read what was received."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/chat"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def replies(self, body: Any, status: int = 200) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.answer = lambda message: (status, raw)

    def stop(self) -> None:
        self._released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def team() -> Iterator[TeamServer]:
    server = TeamServer()
    yield server
    server.stop()


def context(history: list[dict[str, str]] | None = None) -> SystemContext:
    history = history or [{"role": "user", "text": "你好"}]
    return SystemContext(
        session_id=12,
        token="secret-token",
        lang="zh",
        today=TODAY,
        turn=len(history),
        history=history,
        # The adapter never touches the world: the team's system books through the API.
        world=cast(World, None),
    )


def respond(settings: dict[str, Any], seen: SystemContext, text: str) -> Reply:
    """The adapter's reply, on an event loop of its own thread.

    The browser tests leave Playwright's event loop running in the main thread, so
    a test that comes after them cannot run a loop there.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, HttpSystem(settings).respond(seen, text)).result()


def ask(team: TeamServer, text: str = "你好", **settings: Any) -> Reply:
    return respond(
        {"endpoint": team.url, **settings}, context([{"role": "user", "text": text}]), text
    )


def test_it_sends_the_protocol_message(team: TeamServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALSITE_BASE_URL", "https://evalsite.example/eval/")
    team.replies({"reply": "您好，请问去哪里？", "end": False})
    history = [
        {"role": "user", "text": "你好"},
        {"role": "system", "text": "您好"},
        {"role": "user", "text": "订机票"},
    ]

    reply = respond({"endpoint": team.url}, context(history), "订机票")

    assert (reply.text, reply.end) == ("您好，请问去哪里？", False)
    assert team.received == [
        {
            "session": 12,
            "token": "secret-token",
            "booking_api": "https://evalsite.example/eval/api/booking/",
            "turn": 3,
            "lang": "zh",
            "today": "2026-12-01",
            "message": "订机票",
            "history": history[:2],
        }
    ]


def test_the_payload_keeps_a_history_that_does_not_end_with_the_message() -> None:
    history = [{"role": "user", "text": "你好"}, {"role": "system", "text": "您好"}]
    assert payload(context(history), "订机票")["history"] == history


def test_a_system_may_end_the_dialogue(team: TeamServer) -> None:
    team.replies({"reply": "再见", "end": True})
    reply = ask(team)
    assert (reply.text, reply.end) == ("再见", True)


def test_a_slow_system_times_out(team: TeamServer) -> None:
    team.replies({"reply": "too late"})
    team.delay = 2.0
    started = time.monotonic()
    with pytest.raises(SystemUnavailable) as failure:
        ask(team, timeout=0.3)
    assert time.monotonic() - started < 1.5
    assert failure.value.reason == f"timed out after 0.3 s waiting for {team.url}"
    assert str(failure.value.message) == "The system did not answer in time."


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (500, {"error": "boom"}, "HTTP 500 from"),
        (503, b"", "HTTP 503 from"),
        (404, {"detail": "not found"}, "HTTP 404 from"),
        (200, b"<html>hello</html>", "not JSON: "),
        (200, ["hello"], "with JSON that is not an object"),
        (200, {"text": "hello"}, "without a 'reply' string"),
        (200, {"reply": 42}, "without a 'reply' string"),
        (200, {"reply": "   "}, "with an empty 'reply'"),
        (200, {"reply": "hi", "end": "yes"}, "an 'end' that is not true or false"),
    ],
)
def test_a_bad_answer_is_a_clear_failure(
    team: TeamServer, status: int, body: Any, reason: str
) -> None:
    team.replies(body, status)
    with pytest.raises(SystemUnavailable) as failure:
        ask(team)
    assert reason in failure.value.reason
    assert team.url in failure.value.reason
    assert str(failure.value.message) == "The system failed to answer."


def test_an_answer_larger_than_the_limit_is_refused(team: TeamServer) -> None:
    team.replies({"reply": "x" * 5000})
    with pytest.raises(SystemUnavailable, match="sent over 1000 bytes"):
        ask(team, max_bytes=1000)
    assert ask(team, max_bytes=6000).text == "x" * 5000


def test_an_endpoint_that_is_down_is_a_clear_failure() -> None:
    url = f"http://127.0.0.1:{free_port()}/chat"
    with pytest.raises(SystemUnavailable, match=f"connection refused by {url}"):
        respond({"endpoint": url}, context(), "你好")


def test_a_broken_configuration_fails_the_message_not_the_server() -> None:
    with pytest.raises(SystemUnavailable, match="configuration is invalid: endpoint must be"):
        respond({"endpoint": "ftp://example.org"}, context(), "你好")


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ({}, "endpoint must be an http(s) URL"),
        ({"endpoint": "example.org/chat"}, "endpoint must be an http(s) URL"),
        ({"endpoint": "http://x/chat", "timeout": 0}, "timeout must be a number"),
        ({"endpoint": "http://x/chat", "timeout": True}, "timeout must be a number"),
        ({"endpoint": "http://x/chat", "max_bytes": 1.5}, "max_bytes must be a whole number"),
        ({"endpoint": "http://x/chat", "token": "t"}, "unknown setting(s) token"),
    ],
)
def test_it_rejects_a_configuration_that_cannot_work(
    settings: dict[str, Any], problem: str
) -> None:
    with pytest.raises(HttpConfigError) as failure:
        HttpConfig.from_config(settings)
    assert problem in str(failure.value)


def test_a_configuration_has_a_ten_second_timeout_by_default() -> None:
    config = HttpConfig.from_config({"endpoint": "https://team.example/chat"})
    assert (config.timeout, config.max_bytes) == (10.0, 65536)


def talk(slug: str, *lines: str, goal: Path | None = None, lang: str = "zh") -> list[str]:
    out = io.StringIO()
    args = ["--today", TODAY.isoformat(), "--lang", lang, *(["--goal", str(goal)] if goal else [])]
    call_command("talk", slug, *args, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out)
    return out.getvalue().splitlines()


@pytest.mark.django_db
def test_a_failing_system_leaves_a_notice_and_the_reason_in_the_log(
    team: TeamServer, caplog: pytest.LogCaptureFixture
) -> None:
    tiny_world()
    DialogueSystem.objects.create(
        slug="team-a", name="Team A", alias="System A", kind="http", config={"endpoint": team.url}
    )
    team.replies({"error": "boom"}, 500)

    with pytest.raises(CommandError, match=f"system team-a failed: HTTP 500 from {team.url}"):
        talk("team-a", "hello", lang="en")

    notice = Message.objects.get(role=Message.Role.NOTICE)
    assert notice.text == "The system failed to answer."
    assert f"HTTP 500 from {team.url}" in caplog.text


# The example bot, as a real process, booking through the real API.


@pytest.fixture
def example_bot() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(BOT), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with urllib.request.urlopen(url, timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the example bot did not start") from None
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_the_example_bot_books_a_whole_dialogue_through_the_api(
    example_bot: str, live_server: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("EVALSITE_BASE_URL", live_server.url)
    world = tiny_world()
    call_command(
        "add_system",
        "example-bot",
        "--kind",
        "http",
        "--endpoint",
        example_bot,
        stdout=io.StringIO(),
    )
    goal = tmp_path / "goal.json"
    goal.write_text(json.dumps(FLIGHT_GOAL, ensure_ascii=False), encoding="utf-8")

    lines = talk("example-bot", "明天从北京到上海的机票", "好的", "没有了，谢谢", goal=goal)

    assert lines[0] == "R: 为您找到：CA1501 08:00–10:15，经济舱，800元。要预订吗？"
    assert lines[1].startswith("R: 已为您预订，订单号 FL-")
    assert lines[2] == "R: 好的，再见！"
    summary = json.loads(lines[-1])
    assert summary["completed"] is True and summary["turns"] == 6
    session = ChatSession.objects.get(system__slug="example-bot")
    booking = Booking.objects.get()
    assert (booking.session_id, booking.item_id, booking.option) == (
        session.pk,
        world.morning.pk,
        "economy",
    )
    assert booking.reference in lines[1]
    assert session.end_reason == ChatSession.EndReason.SYSTEM
    assert goal_met(FLIGHT_GOAL, session.bookings.all(), TODAY)


@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_the_example_bot_books_a_hotel_in_english(
    example_bot: str, live_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVALSITE_BASE_URL", live_server.url)
    world = tiny_world()
    DialogueSystem.objects.create(
        slug="example-bot",
        name="Example",
        alias="System E",
        kind="http",
        config={"endpoint": example_bot},
    )

    lines = talk("example-bot", "I need a hotel in Shanghai tomorrow", "2 nights", "yes", lang="en")

    assert lines[0] == "R: For how many nights?"
    assert lines[1] == "R: I found Bund Hotel, king, 550 yuan a night. Shall I book it?"
    booking = Booking.objects.get()
    assert (booking.item_id, booking.price) == (world.bund.pk, 1100)
    assert booking.details["check_in"] == (TODAY + dt.timedelta(days=1)).isoformat()


# Adding a system.


def add_system(*args: str) -> str:
    out = io.StringIO()
    call_command("add_system", *args, stdout=out)
    return out.getvalue().strip()


@pytest.mark.django_db
def test_add_system_adds_an_http_system_under_the_next_free_alias(
    builtin_systems: dict[str, DialogueSystem],
) -> None:
    first = add_system("team-a", "--kind", "http", "--endpoint", "https://a.example/chat")
    second = add_system(
        "team-c", "--kind", "http", "--endpoint", "https://c.example/chat", "--timeout", "4.5"
    )

    assert first == "Added system team-a (System A, http). Try it: python manage.py talk team-a"
    team_a, team_c = (
        DialogueSystem.objects.get(slug="team-a"),
        DialogueSystem.objects.get(slug="team-c"),
    )
    assert (team_a.kind, team_a.config, team_a.name) == (
        "http",
        {"endpoint": "https://a.example/chat"},
        "team-a",
    )
    # "System B" is the baseline's.
    assert (team_c.alias, team_c.config["timeout"]) == ("System C", 4.5)
    assert "System C" in second


@pytest.mark.django_db
def test_add_system_updates_a_system_only_when_asked() -> None:
    add_system(
        "team-a", "--kind", "http", "--endpoint", "https://a.example/chat", "--alias", "Sys 1"
    )
    with pytest.raises(CommandError, match="already exists; pass --update"):
        add_system("team-a", "--kind", "http", "--endpoint", "https://a.example/v2")

    add_system("team-a", "--kind", "http", "--endpoint", "https://a.example/v2", "--update")

    system = DialogueSystem.objects.get(slug="team-a")
    assert (system.alias, system.config) == ("Sys 1", {"endpoint": "https://a.example/v2"})


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["team-a", "--kind", "http"], "--kind http needs --endpoint"),
        (
            ["team-a", "--kind", "http", "--endpoint", "a.example"],
            "endpoint must be an http(s) URL",
        ),
        (
            ["team-a", "--kind", "http", "--endpoint", "http://[::1/ok"],
            "IPv6 address is missing a closing bracket",
        ),
        (
            ["team-a", "--kind", "http", "--endpoint", "http://127.0.0.1:99999/chat"],
            "the port must be a number from 1 to 65535, not 99999",
        ),
        (
            ["team-a", "--kind", "http", "--endpoint", "http://a/", "--model", "m"],
            "--model cannot be used with --kind http",
        ),
        (["team a", "--kind", "http", "--endpoint", "http://a/"], "is not a slug"),
        (["team-a", "--kind", "http", "--endpoint", "http://a/", "--update"], "no system 'team-a'"),
        (
            ["team-a", "--kind", "http", "--endpoint", "http://a/", "--alias", "Taken"],
            "alias 'Taken'",
        ),
    ],
)
def test_add_system_explains_what_is_wrong(args: list[str], problem: str) -> None:
    DialogueSystem.objects.create(slug="other", name="Other", alias="Taken", kind="reference")
    # The command speaks English whatever an earlier test left active.
    with translation.override("en"), pytest.raises(CommandError) as failure:
        add_system(*args)
    assert problem in str(failure.value)
    assert not DialogueSystem.objects.filter(slug="team-a").exists()
