from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

import channels.consumer as consumer_module
import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from evalsite import roles
from evalsite.asgi import application
from evalsite.socket_revocation import user_group
from liveeval import aliases, conversation
from liveeval.consumers import ChatConsumer, group_name
from liveeval.models import ChatSession, Message
from tests.channels_auth import session_headers
from tests.conftest import make_user
from tests.liveeval.conftest import judged_session, make_campaign, make_system, make_task

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fake_systems")]

SECRET_NAMES = ("Secret echo engine", "test-echo", "echo-slug")


@database_sync_to_async
def echo_session(judge: User, **kwargs: object) -> ChatSession:
    system = make_system("test-echo", "echo-slug", "System Q", "Secret echo engine")
    campaign = make_campaign(**kwargs)  # type: ignore[arg-type]
    return judged_session(judge, system, campaign, task=make_task())


async def connect(user: User, session: ChatSession) -> tuple[bool, WebsocketCommunicator]:
    headers = await session_headers(user)
    communicator = WebsocketCommunicator(
        application, f"/ws/live/{session.pk}/?lang=en", headers=headers
    )
    connected, _ = await communicator.connect(timeout=10)
    return connected, communicator


async def receive_until(communicator: WebsocketCommunicator, marker: str) -> list[str]:
    frames = []
    async with asyncio.timeout(10):
        while True:
            frame = await communicator.receive_from(timeout=10)
            frames.append(frame)
            if marker in frame:
                return frames


@pytest.mark.parametrize("role", [roles.JUDGES, roles.ANNOTATORS, roles.COORDINATORS])
async def test_other_people_are_refused(judge: User, role: str) -> None:
    session = await echo_session(judge)
    intruder = await database_sync_to_async(make_user)(f"intruder-{role}", role)
    connected, communicator = await connect(intruder, session)
    assert connected is False
    await communicator.disconnect()


async def test_anonymous_users_are_refused(judge: User) -> None:
    session = await echo_session(judge)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/live/{session.pk}/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect(timeout=10)
    assert connected is False
    await communicator.disconnect()


async def test_a_closed_session_shows_its_end_and_closes_for_good(judge: User) -> None:
    session = await echo_session(judge)
    await database_sync_to_async(session.end)(ChatSession.EndReason.USER)
    connected, communicator = await connect(judge, session)
    assert connected
    history = await communicator.receive_from(timeout=10)
    assert "This conversation has ended" in history and 'id="rating-form"' in history
    # A code htmx's ws extension does not reconnect after (it retries 1006, 1011-1013 only).
    assert await communicator.receive_output() == {"type": "websocket.close", "code": 4001}
    await communicator.disconnect()


async def test_a_message_from_a_second_tab_waits_for_the_reply_instead_of_being_refused(
    judge: User,
) -> None:
    system = await database_sync_to_async(make_system)("test-slow", "slow", "System S")
    campaign = await database_sync_to_async(make_campaign)(timeout=0.5)
    session = await database_sync_to_async(judged_session)(judge, system, campaign)
    _, tab_a = await connect(judge, session)
    _, tab_b = await connect(judge, session)
    await receive_until(tab_a, 'id="chat-log"')
    await receive_until(tab_b, 'id="chat-log"')
    await tab_a.send_json_to({"message": "from tab a"})
    await receive_until(tab_b, "from tab a")
    await tab_b.send_json_to({"message": "from tab b"})
    queued = await receive_until(tab_b, "chat-alert")
    assert "as soon as the system has answered" in queued[-1]
    frames = await receive_until(tab_a, "from tab b")
    assert any("notice-bubble" in frame for frame in frames)
    await receive_until(tab_a, "notice-bubble")
    roles = await database_sync_to_async(
        lambda: list(session.messages.values_list("role", "text"))
    )()
    assert [role for role, _text in roles] == ["user", "notice", "user", "notice"]
    assert roles[2][1] == "from tab b"
    await tab_a.disconnect()
    await tab_b.disconnect()


async def test_the_message_is_stored_before_the_reply_is_pushed(judge: User) -> None:
    session = await echo_session(judge)
    connected, communicator = await connect(judge, session)
    assert connected
    await receive_until(communicator, 'id="chat-log"')
    await communicator.send_json_to({"message": "你好", "HEADERS": {"HX-Request": "true"}})
    frames = await receive_until(communicator, "echo: 你好")
    # The user's own bubble comes back first, with the "replying" indicator on.
    assert "你好" in frames[0] and 'class="typing"' in frames[0] and " hidden" not in frames[0]
    rows = await database_sync_to_async(
        lambda: list(session.messages.values_list("position", "role", "text"))
    )()
    assert rows == [(0, "user", "你好"), (1, "system", "echo: 你好")]
    reply = await database_sync_to_async(session.messages.get)(position=1)
    assert reply.latency_ms is not None
    session_state = await database_sync_to_async(ChatSession.objects.get)(pk=session.pk)
    assert session_state.state == {"turns": 1}
    await communicator.disconnect()


async def test_a_built_in_system_answers_in_one_trip_and_one_frame(
    judge: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = await database_sync_to_async(make_system)("test-in-process", "inproc", "System I")
    campaign = await database_sync_to_async(make_campaign)()
    session = await database_sync_to_async(judged_session)(judge, system, campaign)
    trips: list[str] = []
    real_trip, real_close = conversation.sync_to_async, consumer_module.aclose_old_connections

    def counted_trip(function: Any) -> Any:
        trips.append(function.__name__)
        return real_trip(function)

    async def counted_close() -> None:
        trips.append("close_old_connections")
        await real_close()

    monkeypatch.setattr(conversation, "sync_to_async", counted_trip)
    monkeypatch.setattr(consumer_module, "aclose_old_connections", counted_close)
    _, tab_a = await connect(judge, session)
    _, tab_b = await connect(judge, session)
    await receive_until(tab_a, 'id="chat-log"')
    await receive_until(tab_b, 'id="chat-log"')
    await tab_a.send_json_to({"message": "hello"})
    for tab in (tab_a, tab_b):
        frame = (await receive_until(tab, "echo: hello"))[-1]
        # The message and its reply arrive together, with no "replying" indicator left on.
        assert frame.index(">hello<") < frame.index("echo: hello")
        assert 'class="typing" hidden' in frame
    # Claim, message, reply and release in one trip to the database thread; opening the
    # sockets and taking the message add no trip of channels' own.
    assert trips == ["_claim_and_answer"]
    rows = await database_sync_to_async(
        lambda: list(session.messages.values_list("position", "role", "text"))
    )()
    assert rows == [(0, "user", "hello"), (1, "system", "echo: hello")]
    await tab_a.disconnect()
    await tab_b.disconnect()


async def test_reconnecting_shows_the_whole_history(judge: User) -> None:
    session = await echo_session(judge)
    connected, first = await connect(judge, session)
    await receive_until(first, 'id="chat-log"')
    await first.send_json_to({"message": "one"})
    await receive_until(first, "echo: one")
    await first.disconnect()

    connected, second = await connect(judge, session)
    assert connected
    history = (await receive_until(second, 'id="chat-log"'))[-1]
    assert history.index(">one<") < history.index("echo: one")
    assert 'hx-swap-oob="innerHTML"' in history
    await second.disconnect()


async def test_two_tabs_see_every_message(judge: User) -> None:
    session = await echo_session(judge)
    _, tab_a = await connect(judge, session)
    _, tab_b = await connect(judge, session)
    await receive_until(tab_a, 'id="chat-log"')
    await receive_until(tab_b, 'id="chat-log"')
    await tab_a.send_json_to({"message": "from tab a"})
    frames_b = await receive_until(tab_b, "echo: from tab a")
    assert any("from tab a" in frame for frame in frames_b)
    await tab_a.disconnect()
    await tab_b.disconnect()


async def test_a_timeout_shows_a_notice_and_keeps_the_session(judge: User) -> None:
    system = await database_sync_to_async(make_system)("test-slow", "slow", "System S")
    campaign = await database_sync_to_async(make_campaign)(timeout=0.3)
    session = await database_sync_to_async(judged_session)(judge, system, campaign)
    _, communicator = await connect(judge, session)
    await receive_until(communicator, 'id="chat-log"')
    await communicator.send_json_to({"message": "hello?"})
    frames = await receive_until(communicator, "notice-bubble")
    assert "系统未能及时回复" in frames[-1]  # stored in the dialogue's language
    stored = await database_sync_to_async(
        lambda: list(session.messages.values_list("role", "text"))
    )()
    assert stored[0] == ("user", "hello?")
    assert stored[1][0] == "notice"
    refreshed = await database_sync_to_async(ChatSession.objects.get)(pk=session.pk)
    assert refreshed.status == ChatSession.Status.OPEN and refreshed.replying_since is None
    await communicator.disconnect()


async def test_a_broken_system_shows_a_notice(judge: User) -> None:
    system = await database_sync_to_async(make_system)("test-broken", "broken", "System X")
    campaign = await database_sync_to_async(make_campaign)()
    session = await database_sync_to_async(judged_session)(judge, system, campaign)
    _, communicator = await connect(judge, session)
    await receive_until(communicator, 'id="chat-log"')
    await communicator.send_json_to({"message": "hi"})
    frames = await receive_until(communicator, "notice-bubble")
    assert "HTTP 500" not in frames[-1]  # the reason goes to the log, not to the judge
    assert await database_sync_to_async(session.messages.count)() == 2
    await communicator.disconnect()


async def test_the_turn_limit_ends_the_session(judge: User) -> None:
    session = await echo_session(judge, max_turns=4)
    _, communicator = await connect(judge, session)
    await receive_until(communicator, 'id="chat-log"')
    await communicator.send_json_to({"message": "one"})
    await receive_until(communicator, "echo: one")
    await communicator.send_json_to({"message": "two"})
    frames = await receive_until(communicator, 'id="rating-form"')
    assert any("This conversation has ended" in frame for frame in frames)
    refreshed = await database_sync_to_async(ChatSession.objects.get)(pk=session.pk)
    assert refreshed.status == ChatSession.Status.ENDED
    assert refreshed.end_reason == ChatSession.EndReason.TURN_LIMIT
    # The ended dialogue closes its socket, and the page does not reconnect.
    assert await communicator.receive_output() == {"type": "websocket.close", "code": 4001}
    assert await database_sync_to_async(session.messages.count)() == 4
    await communicator.disconnect()


async def test_no_system_identity_appears_in_frames(judge: User) -> None:
    session = await echo_session(judge)
    _, communicator = await connect(judge, session)
    frames = await receive_until(communicator, 'id="chat-log"')
    await communicator.send_json_to({"message": "who are you"})
    frames += await receive_until(communicator, "echo: who are you")
    await communicator.send_json_to({"message": "bye"})
    frames += await receive_until(communicator, 'id="rating-form"')
    text = "\n".join(frames)
    assert session.campaign is not None
    code = await database_sync_to_async(aliases.code_for)(session.campaign, session.system)
    assert f"System {code}" in text
    assert "System Q" not in text
    for secret in SECRET_NAMES:
        assert secret not in text
    await communicator.disconnect()


async def test_garbage_frames_are_ignored(judge: User) -> None:
    session = await echo_session(judge)
    _, communicator = await connect(judge, session)
    await receive_until(communicator, 'id="chat-log"')
    await communicator.send_to(text_data="not json")
    await communicator.send_json_to({"message": ["not", "text"]})
    await communicator.send_json_to({"message": "   "})
    assert await communicator.receive_nothing(timeout=0.3)
    assert await database_sync_to_async(Message.objects.filter(session=session).count)() == 0
    await communicator.disconnect()


async def test_frames_escape_what_people_type(judge: User) -> None:
    session = await echo_session(judge)
    _, communicator = await connect(judge, session)
    await receive_until(communicator, 'id="chat-log"')
    await communicator.send_json_to({"message": "<script>alert(1)</script>"})
    frames = await receive_until(communicator, "echo: ")
    assert "<script>" not in "".join(frames)
    assert "&lt;script&gt;" in frames[-1]
    await communicator.disconnect()


async def test_frames_follow_the_language_of_the_page(judge: User) -> None:
    session = await echo_session(judge, max_turns=2)
    headers = await session_headers(judge)
    communicator = WebsocketCommunicator(
        application, f"/ws/live/{session.pk}/?lang=zh-hans", headers=headers
    )
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    await receive_until(communicator, 'id="chat-log"')
    await communicator.send_json_to({"message": "hi"})
    frames = await receive_until(communicator, 'id="rating-form"')
    assert "对话已结束" in "".join(frames)
    # The reply's bubble names the system by its alias in the page's language too.
    assert re.search(r"系统 \d{3}", frames[-1]) and not re.search(r"System \d{3}", frames[-1])
    await communicator.disconnect()


async def test_reconnecting_keeps_a_draft_in_the_composer(judge: User) -> None:
    session = await echo_session(judge)
    _, communicator = await connect(judge, session)
    history = (await receive_until(communicator, 'id="chat-log"'))[-1]
    # An open session's history frame leaves the input box alone, so nothing typed is lost.
    assert 'id="composer"' not in history and 'data-live="1"' in history
    await communicator.disconnect()


async def test_archiving_the_campaign_closes_the_open_chat_and_refuses_its_messages(
    judge: User,
) -> None:
    session = await echo_session(judge)
    connected, communicator = await connect(judge, session)
    assert connected
    await receive_until(communicator, 'id="chat-log"')
    coordinator = await database_sync_to_async(make_user)("archiver", roles.COORDINATORS)

    def archive_from_the_page() -> int:
        client = Client()
        client.force_login(coordinator)
        url = reverse("liveeval:campaign_archive", args=[session.campaign_id])
        return client.post(url).status_code

    with translation.override("en"):
        assert await database_sync_to_async(archive_from_the_page)() == 302
    frames = await receive_until(communicator, "archived this campaign")
    assert 'id="composer"' in frames[-1] and "chat-form" not in frames[-1]
    closing = await communicator.receive_output(timeout=5)
    assert closing == {"type": "websocket.close", "code": 4001}
    # A message that reached the server anyway is not stored, and the dialogue stays open.
    with pytest.raises(conversation.ConversationClosed):
        await conversation.exchange(session.pk, "still there?")
    stored = await database_sync_to_async(ChatSession.objects.get)(pk=session.pk)
    assert stored.status == ChatSession.Status.OPEN and stored.replying_since is None
    assert await database_sync_to_async(stored.messages.count)() == 0
    await communicator.disconnect()


async def test_the_reference_system_answers_in_the_sessions_language_not_the_pages(
    judge: User, builtin_systems: dict[str, Any]
) -> None:
    """A judge with the Chinese interface in an English campaign gets English replies, even to a
    message that says nothing of its language."""

    def english_session() -> ChatSession:
        campaign = make_campaign(name="English campaign")
        campaign.lang = "en"
        campaign.save(update_fields=["lang"])
        session = judged_session(judge, builtin_systems["reference"], campaign, task=make_task())
        session.lang = "en"
        session.save(update_fields=["lang"])
        return session

    session = await database_sync_to_async(english_session)()
    headers = await session_headers(judge)
    communicator = WebsocketCommunicator(
        application, f"/ws/live/{session.pk}/?lang=zh-hans", headers=headers
    )
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    await receive_until(communicator, 'id="chat-log"')
    await communicator.send_json_to({"message": "OK"})
    await receive_until(communicator, 'class="bubble system')
    reply = await database_sync_to_async(
        lambda: session.messages.filter(role=Message.Role.SYSTEM).latest("position").text
    )()
    assert re.search(r"[A-Za-z]{3,}", reply) and not re.search(r"[\u4e00-\u9fff]", reply), reply
    await communicator.disconnect()


async def test_each_numbered_message_is_acknowledged_as_stored_or_refused(judge: User) -> None:
    session = await echo_session(judge)
    _, tab = await connect(judge, session)
    await receive_until(tab, 'id="chat-log"')
    await tab.send_json_to({"message": "hello", "sent": 7})
    frames = await receive_until(tab, 'data-sent="7"')
    assert 'data-outcome="stored"' in frames[-1]
    await tab.send_json_to({"message": "x" * 2001, "sent": 8})
    frames = await receive_until(tab, 'data-sent="8"')
    assert 'data-outcome="refused"' in frames[-1]
    assert any("too long" in frame for frame in frames)
    await tab.disconnect()


async def test_a_client_gone_during_the_open_gets_no_work_done(
    judge: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Daphne drops a socket not accepted in time: the open must stop, not render the history
    and join groups for nobody (the refused opens of a busy server piled up that way)."""
    session = await echo_session(judge)
    rendered: list[str] = []
    real_frame = ChatConsumer._frame

    def counted_frame(self: ChatConsumer, chat_session: ChatSession, what: str) -> str:
        rendered.append(what)
        return real_frame(self, chat_session, what)

    monkeypatch.setattr(ChatConsumer, "_frame", counted_frame)
    headers = await session_headers(judge)
    tab = WebsocketCommunicator(application, f"/ws/live/{session.pk}/?lang=en", headers=headers)
    await tab.send_input({"type": "websocket.connect"})
    await tab.send_input({"type": "websocket.disconnect", "code": 1006})
    await tab.wait(timeout=5)  # the consumer has finished
    assert rendered == []
    layer = get_channel_layer()
    assert not layer.groups.get(group_name(session.pk))
    assert not layer.groups.get(user_group(judge.pk))
    stored = await database_sync_to_async(ChatSession.objects.get)(pk=session.pk)
    assert stored.replying_since is None


@database_sync_to_async
def leave_a_dead_claim(session: ChatSession) -> None:
    """A message stored by a process that died before answering: its claim is past due."""
    past = timezone.now() - timedelta(minutes=5)
    ChatSession.objects.filter(pk=session.pk).update(
        replying_since=past, reply_deadline=past, replying_worker="elsewhere:1:1"
    )
    Message.objects.create(session=session, position=0, role=Message.Role.USER, text="lost?")


async def test_a_tab_left_open_is_shown_the_notice_when_a_dead_claim_is_released(
    judge: User,
) -> None:
    session = await echo_session(judge)
    _, surviving = await connect(judge, session)
    await receive_until(surviving, 'id="chat-log"')
    await leave_a_dead_claim(session)
    _, returning = await connect(judge, session)  # opening releases the claim with a notice
    history = (await receive_until(returning, 'id="chat-log"'))[-1]
    assert "notice-bubble" in history
    frame = (await receive_until(surviving, "notice-bubble"))[-1]
    assert 'hx-swap-oob="innerHTML"' in frame and ">lost?<" in frame
    await surviving.disconnect()
    await returning.disconnect()


async def test_a_layer_subscribed_again_sends_the_whole_conversation_or_closes(
    judge: User,
) -> None:
    # What a process's sockets are told once it has subscribed to Redis again: frames
    # published meanwhile were lost, so the page is sent everything stored.
    from channels.layers import get_channel_layer

    from liveeval.consumers import group_name

    session = await echo_session(judge)
    connected, communicator = await connect(judge, session)
    assert connected
    await communicator.receive_from(timeout=10)  # the history
    await database_sync_to_async(Message.objects.create)(
        session=session, position=1, role="user", text="published while away"
    )
    layer = get_channel_layer()
    await layer.group_send(group_name(session.pk), {"type": "layer.resubscribed"})
    frame = await communicator.receive_from(timeout=10)
    assert 'id="chat-log" hx-swap-oob="innerHTML"' in frame and "published while away" in frame

    # A revocation published meanwhile was lost too: access is checked again.
    await database_sync_to_async(User.objects.filter(pk=judge.pk).update)(is_active=False)
    await layer.group_send(group_name(session.pk), {"type": "layer.resubscribed"})
    assert await communicator.receive_output(timeout=10) == {
        "type": "websocket.close",
        "code": 4403,
    }
    await communicator.disconnect()
