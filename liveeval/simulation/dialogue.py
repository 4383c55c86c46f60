"""One simulated dialogue: talk through ``conversation.exchange`` until it ends, then rate it.

The simulated judge talks through ``conversation.exchange``, the same path as a judge's browser.
Each request is rebuilt from the stored messages, so a dialogue interrupted at any point goes on
from where it stands. Its inner state is stored as the ``feelings`` of its message. The dialogue
ends with ``[END]``, when the system ends it, or at the campaign's turn limit; then the judges'
form is filled in once, with a reason for each answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from asgiref.sync import sync_to_async

from evalsite.llm.client import LLMClient
from evalsite.llm.runs import RAW_SHOWN
from liveeval.conversation import ConversationClosed, SystemBusy, exchange
from liveeval.models import ChatSession, Message, Rating
from liveeval.simulation.answers import SimulatedRating, read_rating, read_turn
from liveeval.simulation.prompts import StoredMessage, rating_messages, simulator_messages


@dataclass(frozen=True)
class Snapshot:
    is_open: bool
    rated: bool
    messages: list[StoredMessage]


def _snapshot(session_id: int) -> Snapshot:
    session = ChatSession.objects.get(pk=session_id)
    return Snapshot(
        is_open=session.is_open,
        rated=Rating.objects.filter(session=session).exists(),
        messages=list(
            session.messages.order_by("position").values_list("role", "text", "feelings")
        ),
    )


def _end(session_id: int) -> None:
    session = ChatSession.objects.get(pk=session_id)
    if session.is_open:
        session.end(ChatSession.EndReason.USER)


def _store_feelings(message_id: int, feelings: str) -> None:
    Message.objects.filter(pk=message_id).update(feelings=feelings)


def _keeps_feelings(feelings: str) -> Callable[[Message, int], Awaitable[None]]:
    async def keep(message: Message, turns: int) -> None:
        await sync_to_async(_store_feelings)(message.pk, feelings)

    return keep


def _store_rating(session_id: int, rating: SimulatedRating) -> None:
    Rating.objects.get_or_create(
        session_id=session_id,
        defaults={
            "completed": rating.completed,
            "satisfaction": rating.satisfaction,
            "fluency": rating.fluency,
            "guidance": rating.guidance,
            "reasons": rating.reasons,
        },
    )


@dataclass(frozen=True)
class Voice:
    """What the simulated judge knows and how the campaign limits its dialogue."""

    persona: str
    task: str
    lang: str
    timeout: float
    max_turns: int


async def hold_dialogue(llm: LLMClient, session_id: int, voice: Voice) -> str | None:
    """Talk until ``[END]``, the system's end or the turn limit; a problem's text, or None."""
    # Every pass sends an utterance or ends, and exchange() ends the session at the turn
    # limit, so this loop ends.
    while True:
        snapshot = await sync_to_async(_snapshot)(session_id)
        if not snapshot.is_open:
            return None
        answer = await llm.complete_json(
            simulator_messages(voice.persona, voice.task, voice.lang, snapshot.messages),
            read_turn,
        )
        if answer.value is None:
            await sync_to_async(_end)(session_id)
            return (
                f"the simulator's turn could not be used: {answer.error}; "
                f"it said: {answer.raw[:RAW_SHOWN]}"
            )
        turn = answer.value
        if turn.utterance:
            try:
                result = await exchange(
                    session_id,
                    turn.utterance,
                    timeout=voice.timeout,
                    max_turns=voice.max_turns,
                    on_user_message=_keeps_feelings(turn.feelings),
                )
            except ConversationClosed:
                return None
            except SystemBusy:
                return "the session is still waiting for the system's reply to an earlier run"
            if result.ended:
                return None
        if turn.ends:
            await sync_to_async(_end)(session_id)
            return None


async def rate_dialogue(llm: LLMClient, session_id: int, voice: Voice) -> str | None:
    """Fill in the judges' form for an ended dialogue; a problem's text, or None."""
    snapshot = await sync_to_async(_snapshot)(session_id)
    if not any(role == Message.Role.USER for role, _text, _feelings in snapshot.messages):
        return "the simulated judge ended the dialogue before saying anything"
    answer = await llm.complete_json(
        rating_messages(voice.persona, voice.task, voice.lang, snapshot.messages), read_rating
    )
    if answer.value is None:
        return f"the rating could not be used: {answer.error}; it said: {answer.raw[:RAW_SHOWN]}"
    await sync_to_async(_store_rating)(session_id, answer.value)
    return None


async def simulate_dialogue(llm: LLMClient, session_id: int, voice: Voice) -> str | None:
    """Hold the dialogue of ``session_id`` from where it stands, then rate it once.

    A problem's text, or None when the dialogue was held and rated.
    """
    snapshot = await sync_to_async(_snapshot)(session_id)
    problem = None
    if snapshot.is_open:
        problem = await hold_dialogue(llm, session_id, voice)
    if problem is None and not snapshot.rated:
        problem = await rate_dialogue(llm, session_id, voice)
    return problem
