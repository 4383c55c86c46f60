"""Systems under test with scripted behaviour, for consumer and conversation tests."""

from __future__ import annotations

import asyncio
from typing import Any

from liveeval.systems.base import Reply, SystemContext, SystemUnavailable


class EchoSystem:
    """Answers 'echo: <text>' and counts its turns in the session state."""

    async def respond(self, context: SystemContext, user_text: str) -> Reply:
        return self.answer(context, user_text)

    def answer(self, context: SystemContext, user_text: str) -> Reply:
        context.state["turns"] = context.state.get("turns", 0) + 1
        if user_text == "bye":
            return Reply("goodbye", end=True)
        return Reply(f"echo: {user_text}")


class InProcessEchoSystem(EchoSystem):
    """The echo as a built-in system: it answers in the database thread, like the reference."""

    def respond_in_thread(self, context: SystemContext, user_text: str) -> Reply:
        return self.answer(context, user_text)


class SlowSystem:
    async def respond(self, context: SystemContext, user_text: str) -> Reply:
        await asyncio.sleep(float(context.state.get("delay", 5)))
        return Reply("too late")


class PacedSystem:
    """Takes ``PACE_S`` over each reply, and notes the order in which it is asked."""

    PACE_S = 0.3
    asked: list[str] = []

    async def respond(self, context: SystemContext, user_text: str) -> Reply:
        self.asked.append(user_text)
        await asyncio.sleep(self.PACE_S)
        return Reply(f"answer to {user_text}")


class BrokenSystem:
    async def respond(self, context: SystemContext, user_text: str) -> Reply:
        raise SystemUnavailable("HTTP 500 from the team's server")


def echo_adapter(config: dict[str, Any]) -> EchoSystem:
    return EchoSystem()


def in_process_echo_adapter(config: dict[str, Any]) -> InProcessEchoSystem:
    return InProcessEchoSystem()


def slow_adapter(config: dict[str, Any]) -> SlowSystem:
    return SlowSystem()


def paced_adapter(config: dict[str, Any]) -> PacedSystem:
    return PacedSystem()


def broken_adapter(config: dict[str, Any]) -> BrokenSystem:
    return BrokenSystem()
