"""The one interface every system under test speaks, whatever it is behind it.

An adapter turns a user's utterance into a :class:`Reply`. It may keep
dialogue state in ``context.state`` (stored on the ChatSession between turns,
so any server process can handle the next message) and book through
``context.world``. Anything that goes wrong on the system's side is raised as
:class:`SystemUnavailable`, whose ``message`` is safe to show to a judge and
whose ``reason`` goes to the log.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

    from liveeval.booking.offers import World


DEFAULT_REPLY_TIMEOUT = 10.0
"""Seconds a system has to answer one message, unless its campaign or configuration says so."""

MAX_REPLY_TIMEOUT = 60.0
"""The longest a system may take: a judge waits no longer, and a dead claim is freed by then."""

CLAIM_GRACE_S = 5.0
"""Seconds past the reply timeout after which a claim on a session is known to be dead."""


@dataclass(frozen=True)
class Reply:
    text: str
    end: bool = False


@dataclass
class SystemContext:
    """What a system sees of one conversation. It never carries the system's identity."""

    session_id: int
    token: str
    lang: str
    today: dt.date
    turn: int
    history: list[dict[str, str]]
    world: World
    state: dict[str, Any] = field(default_factory=dict)


class SystemUnavailable(Exception):
    """The system did not give a usable answer: timeout, crash, bad response."""

    def __init__(self, reason: str, message: StrOrPromise | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.message: StrOrPromise = message or _("The system is unavailable.")


class SystemAdapter(Protocol):
    async def respond(self, context: SystemContext, user_text: str) -> Reply: ...


@runtime_checkable
class SyncAdapter(Protocol):
    """A system that runs inside EvalSite and may answer in the database thread."""

    async def respond(self, context: SystemContext, user_text: str) -> Reply: ...

    def respond_in_thread(self, context: SystemContext, user_text: str) -> Reply: ...
