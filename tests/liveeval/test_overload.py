"""Past its bound, a server process keeps a judge's message, says so, and answers it in turn."""

from __future__ import annotations

import asyncio
import socket
import time
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.utils import translation
from pytest_django.fixtures import Settings

from evalsite import roles
from evalsite.asgi import application
from liveeval import overload, recovery
from liveeval.conversation import answer_kept, keep
from liveeval.models import ChatSession
from liveeval.systems.base import CLAIM_GRACE_S
from tests.channels_auth import session_headers
from tests.conftest import make_user
from tests.liveeval.conftest import judged_session, make_campaign, make_system
from tests.liveeval.fake_systems import PacedSystem

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fake_systems")]

BUSY = {
    "en": "The system is busy; your message is kept and will be answered.",
    "zh-hans": "系统正忙；你的消息已保存，会按顺序得到回复。",
}


@database_sync_to_async
def paced_sessions(count: int) -> list[tuple[User, ChatSession]]:
    system = make_system("test-paced", "paced", "System P")
    campaign = make_campaign(timeout=5.0)
    made = []
    for number in range(count):
        judge = make_user(f"judge-{number}", roles.JUDGES)
        made.append((judge, judged_session(judge, system, campaign)))
    return made


async def open_chat(judge: User, session: ChatSession, lang: str) -> WebsocketCommunicator:
    headers = await session_headers(judge)
    tab = WebsocketCommunicator(application, f"/ws/live/{session.pk}/?lang={lang}", headers=headers)
    connected, _ = await tab.connect(timeout=10)
    assert connected
    assert 'id="chat-log"' in await tab.receive_from(timeout=10)
    return tab


async def frames_until(tab: WebsocketCommunicator, *markers: str) -> list[str]:
    """Frames until every marker was seen (the acknowledgement and the group's frame may
    come in either order)."""
    frames: list[str] = []
    async with asyncio.timeout(10):
        while not all(any(marker in frame for frame in frames) for marker in markers):
            frames.append(await tab.receive_from(timeout=10))
    return frames


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
async def test_past_the_bound_a_message_is_kept_with_a_notice_and_answered_in_order(
    settings: Settings, lang: str
) -> None:
    settings.LIVE_REPLIES_IN_PROGRESS = 1
    settings.LIVE_MESSAGES_WAITING = 0
    PacedSystem.asked = []
    chats = await paced_sessions(3)
    tabs = [await open_chat(judge, session, lang) for judge, session in chats]
    started = time.monotonic()
    for number, tab in enumerate(tabs):
        await tab.send_json_to({"message": f"m{number}", "sent": number + 1})
    # The first takes the one slot; the other two are stored, acknowledged and noticed at once.
    for number, tab in enumerate(tabs[1:], start=1):
        frames = await frames_until(tab, 'data-outcome="stored"', 'data-alert="overloaded"')
        shown = "".join(frames)
        assert f'data-sent="{number + 1}" data-outcome="stored"' in shown
        assert BUSY[lang] in shown and 'data-alert="overloaded"' in shown
        assert f">m{number}<" in shown
    noticed_after = time.monotonic() - started
    assert noticed_after < PacedSystem.PACE_S, "the notice must not wait for a reply"
    rows = await database_sync_to_async(
        lambda: [list(s.messages.values_list("role", "text")) for _j, s in chats]
    )()
    assert rows[1] == [("user", "m1")] and rows[2] == [("user", "m2")]  # kept, not yet answered
    for number, tab in enumerate(tabs):
        await frames_until(tab, f"answer to m{number}")
    assert PacedSystem.asked == ["m0", "m1", "m2"]
    rows = await database_sync_to_async(
        lambda: [list(s.messages.values_list("role", "text")) for _j, s in chats]
    )()
    assert rows == [[("user", f"m{n}"), ("system", f"answer to m{n}")] for n in range(3)]
    claims = await database_sync_to_async(
        lambda: ChatSession.objects.filter(replying_since__isnull=False).count()
    )()
    assert claims == 0
    for tab in tabs:
        await tab.disconnect()


async def test_a_message_that_waits_too_long_for_a_slot_is_kept_with_a_notice(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LIVE_REPLIES_IN_PROGRESS = 1
    settings.LIVE_MESSAGES_WAITING = 4
    monkeypatch.setattr(overload, "WAIT_BEFORE_KEEPING_S", 0.05)
    monkeypatch.setattr(PacedSystem, "PACE_S", 1.0)
    PacedSystem.asked = []
    chats = await paced_sessions(2)
    first, second = [await open_chat(judge, session, "en") for judge, session in chats]
    await first.send_json_to({"message": "m0", "sent": 1})
    await frames_until(first, 'data-outcome="stored"')
    await second.send_json_to({"message": "m1", "sent": 1})
    frames = await frames_until(second, 'data-outcome="stored"', 'data-alert="overloaded"')
    assert BUSY["en"] in "".join(frames)
    assert PacedSystem.asked == ["m0"]
    await frames_until(second, "answer to m1")
    assert PacedSystem.asked == ["m0", "m1"]
    await first.disconnect()
    await second.disconnect()


async def test_a_slot_is_never_lost_when_a_waiter_gives_up() -> None:
    slots = overload.ReplySlots(replying=1, waiting=1)
    assert slots.take_now()
    waiter = asyncio.ensure_future(slots.take())
    await asyncio.sleep(0)
    slots.give_back()  # handed to the waiter...
    waiter.cancel()  # ...which is cancelled before it runs: the slot comes back
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert slots.replying == 0 and slots.take_now()
    gone = asyncio.ensure_future(slots.take())
    await asyncio.sleep(0)
    gone.cancel()  # leaves the line without a slot
    with pytest.raises(asyncio.CancelledError):
        await gone
    slots.give_back()
    assert slots.replying == 0 and slots.in_line == 0


async def test_a_waiter_passed_over_while_it_gives_up_leaves_cleanly() -> None:
    """A waiter's time runs out; before it has left the line, a slot is given back and passes
    over its cancelled turn (found by the overload benchmark)."""
    slots = overload.ReplySlots(replying=1, waiting=1)
    assert slots.take_now()
    waiter = asyncio.ensure_future(slots.take())
    await asyncio.sleep(0)
    waiter.cancel()  # cancels its turn at once; the waiter leaves the line when it next runs
    slots.give_back()  # passes over the cancelled turn: the slot becomes free
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert slots.replying == 0 and slots.in_line == 0 and slots.take_now()


async def test_a_kept_message_whose_process_died_gets_a_notice_and_is_not_answered_twice() -> None:
    """Kept is stored under a claim naming this process: if the process dies, the claim is
    released with a notice, and an answer arriving after that is not stored."""
    [(_judge, session)] = await paced_sessions(1)
    kept = await keep(session.pk, "hello", timeout=5.0, wait_s=overload.KEPT_WAIT_S)
    stored = await database_sync_to_async(ChatSession.objects.get)(pk=session.pk)
    assert stored.replying_worker == recovery.WORKER
    assert stored.replying_since is not None and stored.reply_deadline is not None
    lasts = stored.reply_deadline - stored.replying_since
    assert lasts == timedelta(seconds=5.0 + CLAIM_GRACE_S + overload.KEPT_WAIT_S)
    await database_sync_to_async(ChatSession.objects.filter(pk=session.pk).update)(
        replying_worker=f"{socket.gethostname()}:999999999:1"
    )  # a process that does not run
    assert await database_sync_to_async(recovery.release_if_stale)(session.pk)
    assert await answer_kept(kept, timeout=5.0, max_turns=None) is None
    rows = await database_sync_to_async(
        lambda: list(session.messages.values_list("role", "text"))
    )()
    with translation.override("zh-hans"):  # the dialogue's language
        notice = str(recovery.NO_ANSWER)
    assert rows == [("user", "hello"), ("notice", notice)]
