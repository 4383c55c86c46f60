"""The judge's live chat over a WebSocket (htmx's ws extension on the page).

The consumer stays thin: permissions on connect, then every message goes
through :func:`liveeval.conversation.exchange`, which stores before anything is
shown. Frames are HTML fragments that htmx swaps in out of band; they carry the
system's alias, never its identity. Every tab of a session joins the session's
group, so all of them see every message.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.template.loader import render_to_string
from django.utils import translation

from evalsite.socket_revocation import ClosedOnRevocation
from evalsite.storable_text import unstorable
from liveeval import chat
from liveeval.conversation import ConversationClosed, SystemBusy, exchange, ui_language
from liveeval.models import ChatSession, Message

logger = logging.getLogger(__name__)

MAX_MESSAGE_LENGTH = 2000


def group_name(session_id: int) -> str:
    return f"live-session-{session_id}"


class ChatConsumer(ClosedOnRevocation):
    session_id: int
    group: str
    lang: str
    max_turns: int | None
    timeout: float

    async def connect(self) -> None:
        self.session_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        session = await self._open_session_for_user()
        if session is None:
            await self.close(code=4403)
            return
        self.lang = self._ui_language(session)
        # An open campaign's turn limit is frozen, so the limits are read once per connection.
        self.max_turns, self.timeout = await self._limits()
        self.group = group_name(self.session_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.watch_user()
        # A reconnecting page may have missed messages: send the whole stored history.
        await self.send(text_data=await self._render("history"))

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        text = self._message_text(text_data)
        if not text:
            return
        if len(text) > MAX_MESSAGE_LENGTH:
            await self.send(text_data=await self._render("too_long"))
            return
        if unstorable(text):
            await self.send(text_data=await self._render("unstorable"))
            return

        async def announce(message: Message) -> None:
            await self.channel_layer.group_send(
                self.group, {"type": "chat.messages", "ids": [message.pk], "replying": True}
            )

        try:
            result = await exchange(
                self.session_id,
                text,
                timeout=self.timeout,
                max_turns=self.max_turns,
                on_user_message=announce,
            )
        except SystemBusy:
            await self.send(text_data=await self._render("busy"))
            return
        except ConversationClosed:
            await self.send(text_data=await self._render("closed"))
            return
        message_ids = [m.pk for m in (result.reply, result.notice) if m is not None]
        await self.channel_layer.group_send(
            self.group, {"type": "chat.messages", "ids": message_ids, "ended": result.ended}
        )

    async def chat_messages(self, event: dict[str, Any]) -> None:
        await self.send(
            text_data=await self._render(
                "messages", ids=event["ids"], replying=event.get("replying", False)
            )
        )
        if event.get("ended"):
            await self.send(text_data=await self._render("ended"))

    async def chat_ended(self, event: dict[str, Any]) -> None:
        await self.send(text_data=await self._render("ended"))

    def _ui_language(self, session: ChatSession) -> str:
        """The language of the page that opened the socket, so frames match the page."""
        query = parse_qs(self.scope.get("query_string", b"").decode())
        chosen = (query.get("lang") or [""])[0]
        if chosen and translation.check_for_language(chosen):
            return chosen
        return ui_language(session.lang)

    @staticmethod
    def _message_text(text_data: str | None) -> str:
        if not text_data:
            return ""
        try:
            payload = json.loads(text_data)
        except json.JSONDecodeError:
            return ""
        message = payload.get("message", "") if isinstance(payload, dict) else ""
        return message.strip() if isinstance(message, str) else ""

    @database_sync_to_async
    def _open_session_for_user(self) -> ChatSession | None:
        user = self.scope.get("user")
        session = ChatSession.objects.filter(pk=self.session_id).first()
        if session is None or not chat.may_chat(user, session):
            return None
        if session.status != ChatSession.Status.OPEN:
            return None
        return session

    @database_sync_to_async
    def _limits(self) -> tuple[int | None, float]:
        session = ChatSession.objects.select_related("campaign").get(pk=self.session_id)
        return chat.limits(session)

    @database_sync_to_async
    def _render(self, what: str, ids: list[int] | None = None, replying: bool = False) -> str:
        session = ChatSession.objects.select_related("campaign", "task", "system").get(
            pk=self.session_id
        )
        with translation.override(self.lang):
            context = chat.frame_context(session, what, ids)
            context["replying"] = replying
            return render_to_string("liveeval/_frame.html", context)
