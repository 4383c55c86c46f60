"""The judge's live chat over a WebSocket (htmx's ws extension on the page).

The consumer stays thin: permissions on connect, then every message goes
through :func:`liveeval.conversation.exchange`, which stores before anything is
shown. Frames are HTML fragments that htmx swaps in out of band; they carry the
system's alias, never its identity. Every tab of a session joins the session's
group, so all of them see every message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.template.loader import render_to_string
from django.utils import translation

from evalsite.socket_revocation import REVOKED_CODE, ClosedOnRevocation
from evalsite.storable_text import unstorable
from liveeval import chat, recovery
from liveeval.conversation import ConversationClosed, SystemBusy, exchange, ui_language
from liveeval.models import ChatSession, Message
from liveeval.systems.base import CLAIM_GRACE_S

logger = logging.getLogger(__name__)

MAX_MESSAGE_LENGTH = 2000
BUSY_POLL_S = 0.1
# How long a frame for the other tabs is tried again while the channel layer fails.
BROADCAST_RETRY_S = 60.0
BROADCAST_RETRY_INTERVAL_S = 0.5


def group_name(session_id: int) -> str:
    return f"live-session-{session_id}"


WITHOUT_CLOSING = {
    "chat.frame": "chat_frame",
    "websocket.receive": "websocket_receive",
    "websocket.connect": "websocket_connect",
    "websocket.disconnect": "websocket_disconnect",
}
"""Handlers dispatched without channels' trip to close stale connections (see ``dispatch``)."""

ENDED_CLOSE_CODE = 4001
"""Closes the socket of an ended dialogue; htmx's ws extension does not reconnect after it."""


class ChatConsumer(ClosedOnRevocation):
    session_id: int
    group: str
    lang: str
    view: chat.LiveView
    outbox: asyncio.Queue[str]
    sender: asyncio.Task[None] | None = None
    broadcasts: asyncio.Queue[dict[str, Any] | None]
    broadcaster: asyncio.Task[None] | None = None

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels closes stale database connections before every handler, one trip to the
        # database thread each. A frame touches no database; a judge's message is only queued
        # here, and the exchange's own trip starts with a fresh connection; opening and closing
        # touch the database only through database_sync_to_async, whose trip does the same.
        handler = WITHOUT_CLOSING.get(message["type"])
        if handler is None:
            await super().dispatch(message)
            return
        await getattr(self, handler)(message)

    async def connect(self) -> None:
        self.session_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        opened = await self._open()
        if opened is None:
            await self.close(code=4403)
            return
        session, history = opened
        await self.accept()
        await self.watch_user()
        # A reconnecting page may have missed messages: send the whole stored history.
        await self.send(text_data=history)
        if not session.is_open:
            # An ended dialogue shows its ended state, and the page stops reconnecting.
            await self.close(code=ENDED_CLOSE_CODE)
            return
        self.group = group_name(self.session_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.outbox = asyncio.Queue()
        self.sender = asyncio.create_task(self._send_queued())
        self.broadcasts = asyncio.Queue()
        self.broadcaster = asyncio.create_task(self._broadcast_queued())

    async def disconnect(self, code: int) -> None:
        # Messages already taken are still answered and stored: the judge sees them on return,
        # and the other tabs are still sent what this one was shown.
        if self.sender is not None:
            self.outbox.put_nowait("")
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
        if self.sender is not None and not self.sender.done():
            self.outbox.put_nowait(text)

    async def _send_queued(self) -> None:
        """Send the judge's messages one at a time, each once the previous one is answered."""
        while text := await self.outbox.get():
            try:
                await self._exchange(text)
            except Exception:
                logger.exception("session %s: a message could not be handled", self.session_id)
        self.broadcasts.put_nowait(None)

    async def _broadcast_queued(self) -> None:
        """Send this tab's frames to the session's other tabs, in order, through the channel
        layer. A layer that stalls or fails (Redis stopped, restarting) holds only them, never
        this tab's next message; a failed send is tried again until the layer is back."""
        while (event := await self.broadcasts.get()) is not None:
            deadline = time.monotonic() + BROADCAST_RETRY_S
            while True:
                try:
                    await self.channel_layer.group_send(self.group, event)
                    break
                except Exception:
                    if time.monotonic() > deadline:
                        logger.exception(
                            "session %s: a frame reached no other tab", self.session_id
                        )
                        break
                    logger.warning(
                        "session %s: the channel layer failed; trying again", self.session_id
                    )
                    await asyncio.sleep(BROADCAST_RETRY_INTERVAL_S)

    async def _exchange(self, text: str) -> None:
        queued_since: float | None = None
        while True:
            try:
                result = await exchange(
                    self.session_id,
                    text,
                    timeout=self.view.timeout,
                    max_turns=self.view.max_turns,
                    # A built-in system answers in the trip that stores the message: the
                    # message and its reply are shown together. Outside systems take longer.
                    on_user_message=None if self.view.in_process else self._announce,
                    fresh_connection=True,
                )
                break
            except SystemBusy:
                # Another tab's message is being answered: this one waits its turn.
                if queued_since is None:
                    queued_since = time.monotonic()
                    await self._send_alert("queued")
                if time.monotonic() - queued_since > self.view.timeout + CLAIM_GRACE_S * 2:
                    await self._send_alert("busy")
                    return
                await asyncio.sleep(BUSY_POLL_S)
            except ConversationClosed:
                await self._send_alert("closed")
                return
        said: list[Message | None] = [result.reply, result.notice]
        if self.view.in_process:
            said.insert(0, result.user_message)
        shown = [chat.ShownMessage.of(m) for m in said if m is not None]
        await self._publish(shown, result.turns, replying=False, ended=result.ended)

    async def _announce(self, message: Message, turns: int) -> None:
        await self._publish([chat.ShownMessage.of(message)], turns, replying=True, ended=False)

    async def _publish(
        self, messages: list[chat.ShownMessage], turns: int, *, replying: bool, ended: bool
    ) -> None:
        """Render the frame once, in this page's language, and send it to every tab: to this
        one at once, whatever the channel layer does, and to the others through the group."""
        html = chat.render_messages_frame(
            self.view, messages, turns, self.lang, replying=replying, ended=ended
        )
        self.broadcasts.put_nowait(
            {
                "type": "chat.frame",
                "html": {self.lang: html},
                "messages": [m.as_event() for m in messages],
                "turns": turns,
                "replying": replying,
                "ended": ended,
                "from": self.channel_name,
            }
        )
        with contextlib.suppress(Exception):  # this tab may have closed: it reads the history
            await self.send(text_data=html)
            if ended:
                await self.close(code=ENDED_CLOSE_CODE)

    async def chat_frame(self, event: dict[str, Any]) -> None:
        if event.get("from") == self.channel_name:
            return  # this tab's own frame, sent to it directly
        html = event["html"].get(self.lang)
        if html is None:  # a tab in the other interface language renders its own copy
            html = chat.render_messages_frame(
                self.view,
                [chat.ShownMessage.from_event(row) for row in event["messages"]],
                event["turns"],
                self.lang,
                replying=event["replying"],
                ended=event["ended"],
            )
        await self.send(text_data=html)
        if event["ended"]:
            await self.close(code=ENDED_CLOSE_CODE)

    async def layer_resubscribed(self, event: dict[str, Any]) -> None:
        """Frames published while this process was not subscribed are lost: the access checks
        run again (a revocation may have been among them), and the page is sent the whole
        stored conversation."""
        opened = await self._open(as_stored_now=True)
        if opened is None:
            await self.close(code=REVOKED_CODE)
            return
        await self.send(text_data=opened[1])

    async def chat_ended(self, event: dict[str, Any]) -> None:
        await self.send(text_data=await self._render("ended"))
        await self.close(code=ENDED_CLOSE_CODE)

    async def chat_archived(self, event: dict[str, Any]) -> None:
        """The campaign was archived: the page says so and stops; the dialogue stays open."""
        await self.send(text_data=await self._render("archived"))
        await self.close(code=ENDED_CLOSE_CODE)

    async def _send_alert(self, what: str) -> None:
        await self.send(text_data=await self._render(what))

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
    def _open(self, *, as_stored_now: bool = False) -> tuple[ChatSession, str] | None:
        """The judge's own started session and its history frame, in one trip to the database.

        Any claim left by a dead process is released first, so the history shows its notice.
        ``as_stored_now`` checks the judge's account as it is stored now, not as it was when
        the socket opened.
        """
        user = self.scope.get("user")
        if as_stored_now and user is not None and user.is_authenticated:
            user = get_user_model().objects.filter(pk=user.pk, is_active=True).first()
        recovery.release_if_stale(self.session_id)
        recovery.release_all_stale()
        session = self._session()
        if session is None or not chat.may_chat(user, session):
            return None
        if session.status == ChatSession.Status.PENDING:
            return None
        self.lang = self._ui_language(session)
        self.view = chat.LiveView.of(session, self.lang)
        return session, self._frame(session, "history")

    def _session(self) -> ChatSession | None:
        sessions = ChatSession.objects.select_related("campaign", "task", "system")
        return sessions.filter(pk=self.session_id).first()

    def _frame(self, session: ChatSession, what: str) -> str:
        with translation.override(self.lang):
            context = chat.frame_context(session, what, None)
            context["replying"] = session.replying_since is not None
            return render_to_string("liveeval/_frame.html", context)

    @database_sync_to_async
    def _render(self, what: str) -> str:
        session = ChatSession.objects.select_related("campaign", "task", "system").get(
            pk=self.session_id
        )
        return self._frame(session, what)
