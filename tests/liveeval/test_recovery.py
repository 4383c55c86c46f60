"""A reply claim whose process died, or whose deadline passed, is released with a notice."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
import websockets
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django.utils import timezone

from liveeval import recovery
from liveeval.conversation import SystemBusy, exchange
from liveeval.models import ChatSession
from testing.servers import Daphne, TemporaryDatabase
from tests.liveeval.conftest import judged_session, make_campaign, make_system

NOTICE_EN = "The system did not answer; please send your message again."

SETUP = """
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import Group, User
from django.contrib.sessions.backends.db import SessionStore
from django.conf import settings
from liveeval.models import Campaign, ChatSession, DialogueSystem
judge = User.objects.create_user("kay")
judge.groups.add(Group.objects.get(name="judges"))
system = DialogueSystem.objects.create(slug="hangs", name="Hangs", alias="System H", kind="http",
    config={"endpoint": "http://127.0.0.1:%(port)d/", "timeout": 30})
campaign = Campaign.objects.create(name="c", today="2026-12-01", lang="en",
    reply_timeout=30, status="open")
session = ChatSession.objects.create(system=system, campaign=campaign, kind="judged", user=judge,
    lang="en", today=campaign.today, status="open", position=0)
store = SessionStore()
store[SESSION_KEY] = str(judge.pk)
store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
store[HASH_SESSION_KEY] = judge.get_session_auth_hash()
store.create()
print(session.pk, settings.SESSION_COOKIE_NAME + "=" + store.session_key)
"""


def _claim_and_roles(database: TemporaryDatabase, session_id: int) -> tuple[bool, list[str]]:
    """Whether the session is still claimed, and its messages' roles, read straight from disk."""
    with sqlite3.connect(database.url.removeprefix("sqlite:///")) as db:
        (claimed,) = db.execute(
            "SELECT replying_since IS NOT NULL FROM liveeval_chatsession WHERE id = ?",
            (session_id,),
        ).fetchone()
        roles = db.execute(
            "SELECT role FROM liveeval_message WHERE session_id = ? ORDER BY position",
            (session_id,),
        ).fetchall()
    return bool(claimed), [role for (role,) in roles]


def _last_line(database: TemporaryDatabase, code: str) -> str:
    return database.manage("shell", "-c", code).strip().splitlines()[-1]


async def _send_and_wait_for_claim(server: Daphne, session_id: int, cookie: str) -> None:
    url = f"{server.ws_url}/ws/live/{session_id}/?lang=en"
    async with websockets.connect(
        url, additional_headers={"Cookie": cookie, "Origin": server.url}
    ) as ws:
        await asyncio.wait_for(ws.recv(), 10)  # the history
        await ws.send(json.dumps({"message": "book me a flight"}))
        frame = await asyncio.wait_for(ws.recv(), 10)
        assert "book me a flight" in frame  # stored and shown: the system is now answering


async def _history(server: Daphne, session_id: int, cookie: str) -> str:
    url = f"{server.ws_url}/ws/live/{session_id}/?lang=en"
    async with websockets.connect(
        url, additional_headers={"Cookie": cookie, "Origin": server.url}
    ) as ws:
        return str(await asyncio.wait_for(ws.recv(), 10))


@pytest.mark.processes
def test_a_killed_worker_leaves_a_notice_and_a_free_session() -> None:
    # A system that accepts the request and never answers: the reply is in flight when killed.
    hanging = socket.socket()
    hanging.bind(("127.0.0.1", 0))
    hanging.listen(8)
    port = hanging.getsockname()[1]
    with TemporaryDatabase(like="") as database, ThreadPoolExecutor(1) as pool:
        env = database.env()
        database.manage("migrate", "--noinput", env=env)
        pk_text, cookie = _last_line(database, SETUP % {"port": port}).split()
        session_id = int(pk_text)
        with Daphne(env) as first:
            pool.submit(asyncio.run, _send_and_wait_for_claim(first, session_id, cookie)).result()
            assert first.process is not None
            first.process.send_signal(signal.SIGKILL)
            first.process.wait(timeout=10)
        assert _claim_and_roles(database, session_id) == (True, ["user"])  # the dead one's claim

        with Daphne(env) as second:
            history = pool.submit(asyncio.run, _history(second, session_id, cookie)).result()
        assert NOTICE_EN in history  # the reconnecting page shows the notice at once
        assert _claim_and_roles(database, session_id) == (False, ["user", "notice"])
    hanging.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fake_systems")
def test_a_claim_past_its_deadline_is_released_before_the_next_message(judge: User) -> None:
    system = make_system("test-echo", "echo", "System Q")
    session = judged_session(judge, system, make_campaign())
    async_to_sync(exchange)(session.pk, "first", timeout=2)
    # A message whose reply never came, claimed by this very process, past its deadline.
    from liveeval.models import Message

    Message.objects.create(session=session, position=2, role="user", text="lost")
    now = timezone.now()
    ChatSession.objects.filter(pk=session.pk).update(
        replying_since=now - timedelta(seconds=20),
        reply_deadline=now - timedelta(seconds=1),
        replying_worker=recovery.WORKER,
    )
    result = async_to_sync(exchange)(session.pk, "again", timeout=2)
    assert result.reply is not None and result.reply.text == "echo: again"
    rows = list(session.messages.order_by("position").values_list("role", "text"))
    assert rows[2:] == [
        ("user", "lost"),
        ("notice", "系统没有回答；请重新发送你的消息。"),
        ("user", "again"),
        ("system", "echo: again"),
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fake_systems")
def test_a_live_claim_of_a_running_process_is_kept(judge: User) -> None:
    system = make_system("test-echo", "echo", "System Q")
    session = judged_session(judge, system, make_campaign())
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        from liveeval.recovery import _process_start

        worker = f"{socket.gethostname()}:{helper.pid}:{_process_start(helper.pid)}"
        now = timezone.now()
        ChatSession.objects.filter(pk=session.pk).update(
            replying_since=now, reply_deadline=now + timedelta(seconds=30), replying_worker=worker
        )
        with pytest.raises(SystemBusy):
            async_to_sync(exchange)(session.pk, "hello", timeout=2)
        helper.kill()
        helper.wait()
        # Its process is gone: the next message goes through at once.
        result = async_to_sync(exchange)(session.pk, "hello", timeout=2)
        assert result.reply is not None
    finally:
        helper.kill()
        helper.wait()
