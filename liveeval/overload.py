"""How one server process bounds the live chat's work, so that a burst degrades instead of
collapsing.

Each process answers at most ``EVALSITE_LIVE_BUILTIN_REPLIES_IN_PROGRESS`` judges' messages
to built-in systems at a time, and ``EVALSITE_LIVE_REPLIES_IN_PROGRESS`` to outside ones (a
reply in progress holds a slot). The bounds differ because the work differs: a built-in
system answers in the process's one database thread, so more than a few at once only queue
there, while an outside system's reply is a wait on the network. Each kind lets at most
``EVALSITE_LIVE_MESSAGES_WAITING`` more messages wait unstored for a slot. A message past
both bounds, or one that has waited ``WAIT_BEFORE_KEEPING_S`` without a slot, is *kept*:
stored at once under its session's claim, acknowledged, and its judge told that the system
is busy and the message will be answered. Kept messages then take slots in the order they
came, behind the waiting ones.

The guarantees, for the consumer that uses this (``liveeval/consumers.py``):

- a judge's message is answered, refused with a reason, or kept with a notice within
  ``WAIT_BEFORE_KEEPING_S`` plus one trip to the database, however long the backlog;
- slots are handed out first come, first served, so messages are answered in order;
- a kept message is stored before it is acknowledged, under a claim naming this process,
  so if the process dies the claim is released with a notice (``liveeval/recovery.py``).
"""

from __future__ import annotations

import asyncio
from collections import deque

from django.conf import settings

WAIT_BEFORE_KEEPING_S = 0.1
"""How long a message may wait unstored for a slot before it is kept with a notice. Short, so
that the messages answered without being kept stay near the 250 ms within which the live chat
answers 99 % of messages below its capacity (with 250 ms here, their p99 was about 400 ms under
twice the capacity; with 100 ms, 200 ms: docs/benchmarks.md)."""

KEPT_WAIT_S = 120.0
"""How long a kept message's claim lasts beyond the reply timeout before any process may
release it with a notice: long enough for a backlog to drain, short enough that a claim
whose holder hangs does not keep the session for long."""


class ReplySlots:
    """Replies in progress in this process, and the messages waiting for one, first come first
    served. One per kind of system, process and event loop (see :func:`slots`)."""

    def __init__(self, replying: int, waiting: int) -> None:
        self.replying_limit = replying
        self.waiting_limit = waiting
        self.replying = 0
        self.waiting = 0
        """Unstored messages waiting for a slot (kept messages wait too, but are not counted)."""
        self._line: deque[asyncio.Future[None]] = deque()

    def take_now(self) -> bool:
        """Take a slot if one is free and nobody waits for one."""
        if self.replying < self.replying_limit and not self._line:
            self.replying += 1
            return True
        return False

    def may_wait(self) -> bool:
        return self.waiting < self.waiting_limit

    async def take(self) -> None:
        """Wait in line for a slot. Cancelled, the waiter leaves the line (or gives back the
        slot it was just handed), so no slot is ever lost."""
        if self.take_now():
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._line.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.give_back()
            elif turn in self._line:  # a slot given back meanwhile may have passed over it
                self._line.remove(turn)
            raise

    def give_back(self) -> None:
        """Free a slot: the first in line gets it, or it becomes free."""
        while self._line:
            turn = self._line.popleft()
            if not turn.done():
                turn.set_result(None)  # the slot passes on; ``replying`` is unchanged
                return
        self.replying -= 1

    @property
    def in_line(self) -> int:
        return sum(1 for turn in self._line if not turn.done())


_slots: dict[tuple[bool, int, int, int], ReplySlots] = {}


def slots(built_in: bool) -> ReplySlots:
    """This process's slots for built-in or outside systems, in the running event loop, with
    the configured bounds."""
    replying = (
        settings.LIVE_BUILTIN_REPLIES_IN_PROGRESS if built_in else settings.LIVE_REPLIES_IN_PROGRESS
    )
    key = (built_in, replying, settings.LIVE_MESSAGES_WAITING, id(asyncio.get_running_loop()))
    found = _slots.get(key)
    if found is None:
        # A new loop or new bounds (tests): the old line went with its loop.
        for stale in [k for k in _slots if k[0] == built_in]:
            del _slots[stale]
        found = _slots[key] = ReplySlots(replying, settings.LIVE_MESSAGES_WAITING)
    return found
