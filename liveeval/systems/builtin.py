"""Adapters for the built-in rule-based systems, which run inside EvalSite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.utils.translation import gettext_lazy as _

from liveeval.booking.offers import World
from liveeval.systems import baseline
from liveeval.systems.base import Reply, SystemContext, SystemUnavailable
from liveeval.systems.reference.turn import respond as reference_respond

Policy = Callable[..., Any]


class PolicyAdapter:
    """Runs a pure dialogue policy; its world calls touch the database, so off the event loop.

    It runs in the thread that holds the request's database connection (asgiref's
    thread-sensitive mode), like the rest of the exchange, so a booking is written on the
    same connection as the messages around it.
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def respond_sync(self, world: World, state: dict[str, Any], text: str, lang: str) -> Any:
        return self.policy(world, state, text, default_lang=lang)

    async def respond(self, context: SystemContext, user_text: str) -> Reply:
        return await sync_to_async(self.respond_in_thread)(context, user_text)

    def respond_in_thread(self, context: SystemContext, user_text: str) -> Reply:
        try:
            turn = self.respond_sync(context.world, context.state, user_text, context.lang)
        except Exception as exc:
            raise SystemUnavailable(
                f"{self.policy.__module__} crashed: {exc!r}",
                _("The system failed to answer."),
            ) from exc
        context.state = turn.state
        return Reply(turn.text, turn.end)


def reference_adapter(config: dict[str, Any]) -> PolicyAdapter:
    return PolicyAdapter(reference_respond)


def baseline_adapter(config: dict[str, Any]) -> PolicyAdapter:
    return PolicyAdapter(baseline.respond)
