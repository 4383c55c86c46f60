"""Redis goes away for 5 s under two daphne processes while judges chat.

A private ``redis-server`` on a free port carries the channel layer and the cache of two daphne
processes (on one SQLite file). Judges chat with the reference system through both processes;
Redis then goes away for 5 s while each judge sends a message: stopped (SIGSTOP: its connections
stay open and go silent), or killed and started again on its port (connections refused, then a
server that knows no subscription: each process, once subscribed again, sends its pages their
whole conversation, since what was published meanwhile is lost), and comes back. Every message
a judge saw shown must be stored with a reply or a notice; every stored message must have one;
each judge's tabs (reconnecting when a socket closed, as htmx's ws extension does) then show
the whole conversation, and a message sent after the outage is answered within 10 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import websockets

from testing.servers import Daphne, TemporaryDatabase, free_port

pytestmark = pytest.mark.processes

JUDGES = 4
# The close codes after which htmx's ws extension reconnects.
RECONNECTING_CODES = {1006, 1011, 1012, 1013}
OUTAGE_S = 5.0
SETUP = """
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import Group, User
from django.contrib.sessions.backends.db import SessionStore
from liveeval.models import Campaign, ChatSession, DialogueSystem
system = DialogueSystem.objects.get(slug="reference")
campaign = Campaign.objects.create(name="c", today="2026-12-01", lang="en", status="open")
for number in range(%(judges)d):
    judge = User.objects.create_user(f"judge{number}")
    judge.groups.add(Group.objects.get(name="judges"))
    session = ChatSession.objects.create(system=system, campaign=campaign, kind="judged",
        user=judge, lang="en", today=campaign.today, status="open", position=0)
    store = SessionStore()
    store[SESSION_KEY] = str(judge.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = judge.get_session_auth_hash()
    store.create()
    print(session.pk, settings.SESSION_COOKIE_NAME + "=" + store.session_key)
"""


class PrivateRedis:
    """A ``redis-server`` of the test's own on a free port, which the test may stop or restart."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        options = ["--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        process = subprocess.Popen(
            ["redis-server", *options, "--appendonly", "no"], stdout=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while not self._answers():
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.02)
        return process

    def _answers(self) -> bool:
        ping = ["redis-cli", "-p", str(self.port), "ping"]
        return subprocess.run(ping, capture_output=True, text=True).stdout.strip() == "PONG"

    def go_away(self, how: str) -> None:
        """Stop answering: ``stop`` (SIGSTOP: connections open and silent) or ``restart``
        (killed: connections refused until it is back, with no subscription left)."""
        if how == "stop":
            self.process.send_signal(signal.SIGSTOP)
        else:
            self.process.kill()
            self.process.wait(timeout=10)

    def come_back(self, how: str) -> None:
        if how == "stop":
            self.process.send_signal(signal.SIGCONT)
        else:
            self.process = self._start()

    def close(self) -> None:
        self.process.send_signal(signal.SIGCONT)
        self.process.kill()
        self.process.wait(timeout=10)


class Tab:
    """One chat page: its socket, what it was shown, and reconnecting as the page does."""

    def __init__(self, server: Daphne, session_id: int, cookie: str) -> None:
        self.url = f"{server.ws_url}/ws/live/{session_id}/?lang=en"
        self.headers = {"Cookie": cookie, "Origin": server.url}
        self.shown = ""
        self.socket: websockets.ClientConnection | None = None

    async def connect(self) -> None:
        self.socket = await websockets.connect(self.url, additional_headers=self.headers)
        self.shown += str(await asyncio.wait_for(self.socket.recv(), 10))  # the history

    async def reconnect_if_closed(self) -> None:
        if self.socket is None or self.socket.close_code is not None:
            await self.connect()

    async def send(self, text: str) -> None:
        assert self.socket is not None
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.socket.send(json.dumps({"message": text}))

    async def shows(self, *texts: str, within: float) -> bool:
        """Whether every one of ``texts`` is shown within ``within`` seconds."""
        assert self.socket is not None
        deadline = time.monotonic() + within
        while not all(text in self.shown for text in texts):
            try:
                frame = await asyncio.wait_for(self.socket.recv(), deadline - time.monotonic())
            except TimeoutError:
                return False
            except websockets.ConnectionClosed:
                if self.socket.close_code not in RECONNECTING_CODES:
                    return False
                await self.connect()
                continue
            self.shown += str(frame)
        return True


def stored(database: TemporaryDatabase, session_id: int) -> list[tuple[str, str]]:
    with sqlite3.connect(database.url.removeprefix("sqlite:///")) as db:
        return db.execute(
            "SELECT role, text FROM liveeval_message WHERE session_id = ? ORDER BY position",
            (session_id,),
        ).fetchall()


async def _chat_through_the_outage(
    servers: list[Daphne], sessions: list[tuple[int, str]], redis: PrivateRedis, how: str
) -> list[bool]:
    """Each judge has a tab on each server and types in the first; whether each judge's typing
    tab showed its message during the outage."""
    typing = [Tab(servers[n % 2], *session) for n, session in enumerate(sessions)]
    other = [Tab(servers[1 - n % 2], *session) for n, session in enumerate(sessions)]
    await asyncio.gather(*(tab.connect() for tab in typing + other))
    for tab in typing:
        await tab.send("hello there")
    assert all(await asyncio.gather(*(tab.shows("hello there", within=10) for tab in other)))

    redis.go_away(how)
    stopped = time.monotonic()
    for n, tab in enumerate(typing):
        await tab.send(f"during the outage {n}")
    # Acknowledged (stored and shown, with the reply) while Redis is still stopped.
    during = await asyncio.gather(
        *(tab.shows(f"during the outage {n}", within=3) for n, tab in enumerate(typing))
    )
    await asyncio.sleep(max(0.0, OUTAGE_S - (time.monotonic() - stopped)))
    redis.come_back(how)

    for tab in typing + other:
        await tab.reconnect_if_closed()
    for n, tab in enumerate(typing):
        await tab.send(f"after the outage {n}")
    expected = [(f"during the outage {n}", f"after the outage {n}") for n in range(JUDGES)]
    recovered = await asyncio.gather(
        *(
            tab.shows(*texts, within=10)
            for tab, texts in zip(typing + other, expected * 2, strict=True)
        )
    )
    assert all(recovered), [tab.shown[-300:] for tab in typing + other]
    return during


@pytest.mark.parametrize("how", ["stop", "restart"])
def test_two_workers_lose_nothing_when_redis_goes_away_for_five_seconds(how: str) -> None:
    redis = PrivateRedis()
    try:
        with TemporaryDatabase(like="") as database:
            env = database.env(REDIS_URL=f"redis://127.0.0.1:{redis.port}/0")
            database.manage("migrate", "--noinput", env=env)
            lines = database.manage("shell", "-c", SETUP % {"judges": JUDGES}, env=env)
            sessions = [
                (int(pk), cookie) for pk, cookie in map(str.split, lines.splitlines()[-JUDGES:])
            ]
            servers = [Daphne(env), Daphne(env)]
            with contextlib.ExitStack() as stack, ThreadPoolExecutor(2) as pool:
                # Both start at once: each takes seconds.
                for server in pool.map(stack.enter_context, servers):
                    assert server.process is not None
                during = pool.submit(
                    asyncio.run, _chat_through_the_outage(servers, sessions, redis, how)
                ).result()
            stored_rows = [stored(database, session_id) for session_id, _ in sessions]
    finally:
        redis.close()
    # The typing tab showed each message and its reply while Redis was stopped.
    assert during == [True] * JUDGES
    for n, rows in enumerate(stored_rows):
        users = [text for role, text in rows if role == "user"]
        assert users == ["hello there", f"during the outage {n}", f"after the outage {n}"]
        # Every stored message has its reply or notice, right after it.
        assert [role for role, _ in rows[1::2]] == ["system"] * 3, rows
