"""The judge's live chat over a WebSocket (htmx's ws extension on the page).

The consumer stays thin: permissions on connect, then every message goes
through :func:`liveeval.conversation.exchange`, which stores before anything is
shown. Frames are HTML fragments that htmx swaps in out of band; they carry the
system's alias, never its identity. Every tab of a session joins the session's
group, so all of them see every message.

Each message the page numbers (``sent``) gets exactly one acknowledgement on its own
socket: stored, or refused (with the reason in the alert). The page keeps the text until
then, so a message the server never stored goes back into the composer.

Under load, :mod:`liveeval.overload` bounds the replies in progress; a message past the
bound is kept (stored at once) and every tab says the system is busy. Opening a socket is
cheap and stops as soon as the client has gone (daphne drops a socket not accepted within
its connect timeout), so retries do not pile work up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any, NamedTuple
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.template.loader import render_to_string
from django.utils import translation

from evalsite.socket_revocation import REVOKED_CODE, ClosedOnRevocation
from evalsite.storable_text import unstorable
from liveeval import chat, overload, recovery
from liveeval.conversation import (
    ConversationClosed,
    SystemBusy,
    answer_kept,
    exchange,
    keep,
    ui_language,
)
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

STORED, REFUSED = "stored", "refused"


class Queued(NamedTuple):
    """A judge's message taken from the socket, waiting its turn in this tab's outbox."""

    text: str
    sent: int | None
    """The page's number for the message, echoed in its acknowledgement."""


def acknowledgement(sent: int, outcome: str) -> str:
    """The frame that tells the sending page what became of its message ``sent``."""
    return (
        f'<div id="chat-ack" hx-swap-oob="true" hidden data-sent="{sent}"'
        f' data-outcome="{outcome}"></div>'
    )


class ChatConsumer(ClosedOnRevocation):
    session_id: int
    group: str
    lang: str
    view: chat.LiveView
    outbox: asyncio.Queue[Queued | None]
    sender: asyncio.Task[None] | None = None
    broadcasts: asyncio.Queue[dict[str, Any] | None]
    broadcaster: asyncio.Task[None] | None = None
    hung_up = False
    """Whether the client has gone: seen as soon as it happens, even while a handler runs."""
    taking: Queued | None = None
    """The message being handled and not yet acknowledged."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        # Channels reads the next client message only once a handler returns, so a socket
        # that daphne dropped during a slow open would go on being opened. Reading ahead
        # lets the open see the hang-up and stop before its heavy part.
        inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        async def read_ahead() -> None:
            while not self.hung_up:
                message = await receive()
                self.hung_up = message["type"] == "websocket.disconnect"
                inbox.put_nowait(message)

        reader = asyncio.create_task(read_ahead())
        try:
            await super().__call__(scope, inbox.get, send)
        finally:
            reader.cancel()

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
        if self.hung_up:
            return  # the client gave up waiting: nothing was prepared for it
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
            self.outbox.put_nowait(None)
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        queued = self._queued(text_data)
        if queued is None:
            return
        if not queued.text:
            await self._acknowledge(queued, REFUSED)
        elif len(queued.text) > MAX_MESSAGE_LENGTH:
            await self.send(text_data=await self._render("too_long"))
            await self._acknowledge(queued, REFUSED)
        elif unstorable(queued.text):
            await self.send(text_data=await self._render("unstorable"))
            await self._acknowledge(queued, REFUSED)
        elif self.sender is not None and not self.sender.done():
            self.outbox.put_nowait(queued)
        else:
            await self._acknowledge(queued, REFUSED)

    async def _send_queued(self) -> None:
        """Send the judge's messages one at a time, each once the previous one is answered."""
        while (queued := await self.outbox.get()) is not None:
            self.taking = queued
            try:
                await self._exchange(queued.text)
            except Exception:
                logger.exception("session %s: a message could not be handled", self.session_id)
            if self.taking is not None:  # never stored: the page gives the text back
                await self._acknowledge(self.taking, REFUSED)
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

    async def _acknowledge(self, queued: Queued | None, outcome: str) -> None:
        if queued is self.taking:
            self.taking = None
        if queued is not None and queued.sent is not None:
            await self.send(text_data=acknowledgement(queued.sent, outcome))

    async def _exchange(self, text: str) -> None:
        queued_since: float | None = None
        while True:
            try:
                await self._admitted(text)
                return
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

    async def _admitted(self, text: str) -> None:
        """Answer at once with a free slot; else wait briefly for one; else keep the message."""
        slots = overload.slots(self.view.in_process)
        if not slots.take_now() and not await self._waited_for_slot(slots):
            await self._keep_and_answer(slots, text)
            return
        try:
            await self._talk(text)
        finally:
            slots.give_back()

    @staticmethod
    async def _waited_for_slot(slots: overload.ReplySlots) -> bool:
        if not slots.may_wait():
            return False
        slots.waiting += 1
        try:
            await asyncio.wait_for(slots.take(), overload.WAIT_BEFORE_KEEPING_S)
        except TimeoutError:
            return False
        finally:
            slots.waiting -= 1
        return True

    async def _talk(self, text: str) -> None:
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
        if self.view.in_process:
            await self._acknowledge(self.taking, STORED)
        said: list[Message | None] = [result.reply, result.notice]
        if self.view.in_process:
            said.insert(0, result.user_message)
        await self._publish_answer(said, result.turns, result.ended)

    async def _keep_and_answer(self, slots: overload.ReplySlots, text: str) -> None:
        """Store the message now and tell every tab the system is busy; answer it in turn."""
        kept = await keep(
            self.session_id, text, timeout=self.view.timeout, wait_s=overload.KEPT_WAIT_S
        )
        await self._publish(
            [chat.ShownMessage.of(kept.user_message)],
            kept.turns,
            replying=True,
            ended=False,
            alert="overloaded",
        )
        await self._acknowledge(self.taking, STORED)
        await slots.take()
        try:
            result = await answer_kept(
                kept, timeout=self.view.timeout, max_turns=self.view.max_turns
            )
        finally:
            slots.give_back()
        if result is not None:
            await self._publish_answer([result.reply, result.notice], result.turns, result.ended)

    async def _publish_answer(self, said: list[Message | None], turns: int, ended: bool) -> None:
        shown = [chat.ShownMessage.of(m) for m in said if m is not None]
        await self._publish(shown, turns, replying=False, ended=ended)

    async def _announce(self, message: Message, turns: int) -> None:
        await self._publish([chat.ShownMessage.of(message)], turns, replying=True, ended=False)
        await self._acknowledge(self.taking, STORED)

    async def _publish(
        self,
        messages: list[chat.ShownMessage],
        turns: int,
        *,
        replying: bool,
        ended: bool,
        alert: str = "",
    ) -> None:
        """Render the frame once, in this page's language, and send it to every tab: to this
        one at once, whatever the channel layer does, and to the others through the group."""
        html = chat.render_messages_frame(
            self.view, messages, turns, self.lang, replying=replying, ended=ended, alert=alert
        )
        self.broadcasts.put_nowait(
            {
                "type": "chat.frame",
                "html": {self.lang: html},
                "messages": [m.as_event() for m in messages],
                "turns": turns,
                "replying": replying,
                "ended": ended,
                "alert": alert,
                "from": self.channel_name,
            },
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
                alert=event.get("alert", ""),
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

    async def chat_resync(self, event: dict[str, Any]) -> None:
        """Something was stored outside this socket's exchanges (a dead process's claim was
        released with a notice): every tab shows the stored history again."""
        await self.send(text_data=await self._render("history"))

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
    def _queued(text_data: str | None) -> Queued | None:
        """The message and the page's number for it; None for a frame that is no message."""
        if not text_data:
            return None
        try:
            payload = json.loads(text_data)
        except json.JSONDecodeError:
            return None
        if not isinstance(payload, dict):
            return None
        message, sent = payload.get("message", ""), payload.get("sent")
        number = int(sent) if isinstance(sent, int | str) and str(sent).isdigit() else None
        text = message.strip() if isinstance(message, str) else ""
        return Queued(text, number if number is not None and number < 2**31 else None)

    @database_sync_to_async
    def _open(self, *, as_stored_now: bool = False) -> tuple[ChatSession, str] | None:
        """The judge's own started session and its history frame, in one trip to the database.

        Nothing is done for a client that has already gone; the heavy part (releasing stale
        claims, rendering the history) waits until the permission check has passed and the
        client is seen to be still there. Any claim left by a dead process is released before
        the history is rendered, so the history shows its notice. ``as_stored_now`` checks the
        judge's account as it is stored now, not as it was when the socket opened.
        """
        if self.hung_up:
            return None
        user = self.scope.get("user")
        if as_stored_now and user is not None and user.is_authenticated:
            user = get_user_model().objects.filter(pk=user.pk, is_active=True).first()
        session = self._session()
        if session is None or not chat.may_chat(user, session):
            return None
        if session.status == ChatSession.Status.PENDING or self.hung_up:
            return None
        if recovery.release_if_stale(self.session_id):
            session = self._session()
            assert session is not None
        recovery.release_all_stale()
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
