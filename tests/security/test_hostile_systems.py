"""A system of any kind that fails, in any way, leaves a notice and a usable session."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User

from liveeval.conversation import exchange
from liveeval.models import ChatSession, Message
from liveeval.systems.base import Reply, SystemContext, SystemUnavailable
from liveeval.systems.http import read_reply
from tests.liveeval.conftest import judged_session, make_campaign, make_system, make_task

pytestmark = pytest.mark.django_db

NESTED = ("[" * 100_000 + "]" * 100_000).encode()


class Raising:
    """An adapter that raises whatever it was given, once, then answers."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.failed = False

    async def respond(self, context: SystemContext, user_text: str) -> Reply:
        if self.failed:
            return Reply("fine now")
        self.failed = True
        raise self.error


def session_with(monkeypatch: pytest.MonkeyPatch, judge: User, adapter: Any) -> ChatSession:
    monkeypatch.setattr("liveeval.conversation.adapter_for", lambda system: adapter)
    system = make_system("test-echo", "hostile", "System H")
    session = judged_session(judge, system, make_campaign(), task=make_task())
    session.lang = "en"  # the notice is written in the dialogue's language
    session.save(update_fields=["lang"])
    return session


def test_a_deeply_nested_http_reply_is_named_in_words() -> None:
    with pytest.raises(SystemUnavailable) as failure:
        read_reply(200, NESTED, "http://team.example/chat")
    assert "reply nested too deeply" in failure.value.reason
    assert "nested too deeply" in str(failure.value.message)


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
        (KeyError("reply"), "could not be read"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "not valid text"),
        (ConnectionResetError(104, "reset"), "connection to it failed"),
        (ZeroDivisionError("division by zero"), "its adapter failed"),
    ],
)
def test_any_adapter_failure_becomes_a_notice_and_the_session_stays_usable(
    monkeypatch: pytest.MonkeyPatch, judge: User, error: BaseException, words: str
) -> None:
    session = session_with(monkeypatch, judge, Raising(error))
    result = async_to_sync(exchange)(session.pk, "hello")
    assert result.reply is None and result.notice is not None
    assert words in result.notice.text
    assert type(error).__name__ not in result.notice.text and "Traceback" not in result.notice.text
    session.refresh_from_db()
    assert session.replying_since is None and session.status == ChatSession.Status.OPEN
    second = async_to_sync(exchange)(session.pk, "again")
    assert second.reply is not None and second.reply.text == "fine now"


def test_a_reply_with_nul_is_stored_without_it(
    monkeypatch: pytest.MonkeyPatch, judge: User
) -> None:
    class NulReply:
        async def respond(self, context: SystemContext, user_text: str) -> Reply:
            return Reply("bad\x00 reply \ud800")

    session = session_with(monkeypatch, judge, NulReply())
    result = async_to_sync(exchange)(session.pk, "hello")
    assert result.reply is not None
    stored = Message.objects.get(pk=result.reply.pk).text
    assert stored == "bad reply \ufffd"
    assert json.dumps(stored)
