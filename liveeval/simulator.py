"""The LLM user simulator: simulated judges talk to live systems and rate them like people.

A simulated judge is an OpenAI-compatible model given a persona (``liveeval.personas``) and a
task card's description in the campaign's language; never the goal JSON, and never anything
that names the system. Before each utterance it writes down its inner state (CONCEPT's
theory-of-mind step), which is stored as the ``feelings`` of that user message. It talks
through ``conversation.exchange``, the same path as a judge's browser, and ends with
``[END]`` when its task is done or it gives up, or is stopped at the campaign's turn limit.
Then it fills in the judges' form (C, Sa, F, G), giving a reason for each answer.

Its dialogues are ChatSessions of kind ``simulated`` with the persona, in the campaign but in
no judge's queue, so they never take a judge's place; the leaderboard sets them beside the
judges' and measures how well they agree. They can be sent to an annotation campaign like
any other transcripts (:func:`send_to_annotation`).

Simulation runs as the background job ``liveeval.simulate``, one dialogue per (task, system,
persona), from the coordinator's page or from ``manage.py simulate``. The checkpoint names
each dialogue's session as soon as it exists, and a resumed job goes on from the stored
messages, so no dialogue is held twice.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone, translation

from annotation.imports.result import ImportResult
from annotation.imports.rows import import_rows
from annotation.llm_evaluator import RAW_SHOWN, Usage, job_purpose
from evalsite import jobs
from evalsite.jobs import JobContext, JobError, job_kind
from evalsite.llm import LLMClient, LLMConfig, LLMConfigError, LLMError
from evalsite.llm import Message as ChatMessage
from evalsite.models import Job
from liveeval.booking.goals import goal_met
from liveeval.booking.world import world_covers
from liveeval.conversation import ConversationClosed, SystemBusy, exchange, ui_language
from liveeval.forms import RatingForm
from liveeval.metrics import MEASURES
from liveeval.models import Campaign, ChatSession, DialogueSystem, Message, Rating, TaskCard
from liveeval.personas import Persona, parse_personas

SIMULATE_JOB = "liveeval.simulate"
SIMULATOR_VERSION = "sim-v1"
END_MARK = "[END]"
RATED = tuple(measure.name for measure in MEASURES)
SCALES = {measure.name: measure.scale for measure in MEASURES}

StoredMessage = tuple[str, str, str]


# The prompts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimulatorText:
    """The fixed wording of the simulator's prompts in one language."""

    playing: str
    start: str
    notice: str
    rating: str
    rating_request: str
    you: str
    assistant: str
    nothing_said: str
    reason: str
    yes_or_no: str
    one_of: str
    colon: str


ENGLISH = SimulatorText(
    playing="""\
You play a person who is chatting with the booking assistant of a travel service. Stay in \
character for the whole conversation.

Who you are: {persona}

What you want to book: {task}

How you talk:
- Write as this person would type in a chat: one or two short sentences, in English.
- Talk only about what you want to book; give its details when the assistant asks for them, \
or on your own.
- Never make up a different trip, and never mention these instructions.
- When the assistant has booked what you want and you need nothing more, or when you decide \
to give up, end your message with [END].

Before every message, think about your inner state as this person: how you feel, what you \
think of the assistant's last reply, and what you will do next.

Answer every time with one JSON object and nothing else: \
{{"feelings": "<your inner state>", "utterance": "<the message you send>"}}""",
    start="The booking assistant is waiting for your first message.",
    notice="(The chat shows a notice instead of a reply: {text})",
    rating="""\
You played this person in a chat with the booking assistant of a travel service.

Who you are: {persona}

What you wanted to book: {task}

The conversation is over. Rate it as this person, on the same form every user of the service \
fills in. For each question, first give your reason, then your answer. Answer with one JSON \
object and nothing else.""",
    rating_request="""\
The conversation:
{transcript}

The form:
{questions}

Answer with this JSON object, giving the reason first in each entry:
{template}""",
    you="You",
    assistant="Assistant",
    nothing_said="(nothing was said)",
    reason="your reason",
    yes_or_no="true or false",
    one_of="one of {values}",
    colon=": ",
)

CHINESE = SimulatorText(
    playing="""\
你扮演一位正在和旅行服务的订票助手聊天的用户，整段对话都要保持这个角色。

你是谁：{persona}

你想预订的：{task}

说话方式：
- 像这个人在聊天软件里打字那样说话：每次一两句简短的话，用简体中文。
- 只谈你想预订的内容；助手问到细节时告诉它，也可以主动说。
- 不要编造别的行程，也不要提到这些说明。
- 当助手已经订好你想要的、你也没有别的需要时，或者你决定放弃时，在消息末尾加上 [END]。

每次发消息之前，先以这个人的身份想一想自己的内心状态：现在的感受、对助手上一条回复的看法、\
接下来打算怎么做。

每次都只回答一个 JSON 对象，不要有其他内容：\
{{"feelings": "<你的内心状态>", "utterance": "<你要发送的消息>"}}""",
    start="订票助手正在等你发第一条消息。",
    notice="（聊天窗口显示了一条提示，而不是回复：{text}）",
    rating="""\
你刚才扮演下面这个人，和旅行服务的订票助手聊了天。

你是谁：{persona}

你想预订的：{task}

对话已经结束。请以这个人的身份，在每位用户都会填写的同一张表上为这段对话打分。\
每个问题先写理由，再给答案。只回答一个 JSON 对象，不要有其他内容。""",
    rating_request="""\
对话：
{transcript}

表格：
{questions}

请按以下 JSON 对象作答，每一项先写理由：
{template}""",
    you="你",
    assistant="助手",
    nothing_said="（没有说任何话）",
    reason="你的理由",
    yes_or_no="true 或 false",
    one_of="{values} 之一",
    colon="：",
)


def _text(lang: str) -> SimulatorText:
    return CHINESE if lang.lower().startswith("zh") else ENGLISH


def simulator_messages(
    persona: str, task: str, lang: str, stored: Sequence[StoredMessage]
) -> list[ChatMessage]:
    """The simulator's request for its next turn, rebuilt from the stored dialogue.

    The simulator plays the assistant role: its own earlier turns come back as the JSON it
    answered (feelings and utterance), and the system's replies as the user's messages.
    """
    text = _text(lang)
    messages: list[ChatMessage] = [
        {"role": "system", "content": text.playing.format(persona=persona, task=task)},
        {"role": "user", "content": text.start},
    ]
    for role, said, feelings in stored:
        if role == Message.Role.USER:
            answer = {"feelings": feelings, "utterance": said}
            messages.append(
                {"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)}
            )
        elif role == Message.Role.SYSTEM:
            messages.append({"role": "user", "content": said})
        else:
            messages.append({"role": "user", "content": text.notice.format(text=said)})
    return messages


def _form_questions(lang: str, text: SimulatorText) -> str:
    """The judges' rating form as text, with the wording judges see in that language."""
    lines = []
    with translation.override(ui_language(lang)):
        for name in RATED:
            field = RatingForm.base_fields[name]
            choices = "; ".join(
                f"{json.dumps(value)} = {label}" for value, label in getattr(field, "choices", [])
            )
            lines.append(f"- {name}: {field.label} {field.help_text} ({choices})")
    return "\n".join(lines)


def _rating_template(text: SimulatorText) -> str:
    entries = []
    for name in RATED:
        if name == "completed":
            hint = text.yes_or_no
        else:
            hint = text.one_of.format(values=", ".join(str(value) for value in SCALES[name]))
        entries.append(f'"{name}": {{"reason": "<{text.reason}>", "value": <{hint}>}}')
    return "{" + ", ".join(entries) + "}"


def rating_messages(
    persona: str, task: str, lang: str, stored: Sequence[StoredMessage]
) -> list[ChatMessage]:
    """The request that has the simulated judge fill in the judges' form."""
    text = _text(lang)
    lines = []
    for role, said, _feelings in stored:
        if role == Message.Role.USER:
            lines.append(f"{text.you}{text.colon}{said}")
        elif role == Message.Role.SYSTEM:
            lines.append(f"{text.assistant}{text.colon}{said}")
        else:
            lines.append(text.notice.format(text=said))
    request = text.rating_request.format(
        transcript="\n".join(lines) or text.nothing_said,
        questions=_form_questions(lang, text),
        template=_rating_template(text),
    )
    return [
        {"role": "system", "content": text.rating.format(persona=persona, task=task)},
        {"role": "user", "content": request},
    ]


# The answers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimulatedTurn:
    """One turn of the simulator: its inner state, what it says, and whether it ends."""

    feelings: str
    utterance: str
    ends: bool


def read_turn(value: Any) -> SimulatedTurn:
    if not isinstance(value, dict):
        raise ValueError('the answer must be a JSON object {"feelings": ..., "utterance": ...}')
    feelings = value.get("feelings")
    utterance = value.get("utterance")
    if not isinstance(feelings, str) or not feelings.strip():
        raise ValueError("feelings must be a non-empty string: the inner state comes first")
    if not isinstance(utterance, str):
        raise ValueError("utterance must be a string")
    ends = END_MARK in utterance
    said = utterance.replace(END_MARK, "").strip()
    if not said and not ends:
        raise ValueError(f"the utterance is empty; to end, say {END_MARK}")
    return SimulatedTurn(feelings.strip(), said, ends)


@dataclass(frozen=True)
class SimulatedRating:
    completed: bool
    satisfaction: int
    fluency: int
    guidance: int
    reasons: dict[str, str]


def read_rating(value: Any) -> SimulatedRating:
    if not isinstance(value, dict):
        raise ValueError("the answer must be a JSON object with one entry per question")
    answers: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    for name in RATED:
        entry = value.get(name)
        if not isinstance(entry, dict):
            raise ValueError(f"{name} must be an object with a reason and a value")
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"{name} needs a reason")
        answer = entry.get("value")
        if name == "completed":
            if not isinstance(answer, bool):
                raise ValueError(f"completed must be true or false, not {answer!r}")
        elif isinstance(answer, bool) or not isinstance(answer, int) or answer not in SCALES[name]:
            allowed = ", ".join(str(value) for value in SCALES[name])
            raise ValueError(f"{name} must be one of {allowed}, not {answer!r}")
        answers[name] = answer
        reasons[name] = reason.strip()
    return SimulatedRating(**answers, reasons=reasons)


# One dialogue ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedDialogue:
    """One dialogue of a simulation: which task, which system, which persona."""

    index: int
    task: TaskCard
    system: DialogueSystem
    persona: Persona


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


def _keeps_feelings(feelings: str) -> Callable[[Message], Awaitable[None]]:
    async def keep(message: Message) -> None:
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


# A simulation job --------------------------------------------------------------------------


class SimulationRun:
    """The state of one simulation job, as its checkpoint holds it."""

    def __init__(self, context: JobContext, campaign: Campaign, simulator: str, total: int) -> None:
        self.context = context
        self.campaign = campaign
        self.simulator = simulator
        self.total = total
        checkpoint = context.checkpoint
        self.sessions: dict[str, int] = {
            str(index): int(session) for index, session in checkpoint.get("sessions", {}).items()
        }
        self.finished: set[int] = {int(index) for index in checkpoint.get("finished", [])}
        self.rated = int(checkpoint.get("rated", 0))
        self.failed = int(checkpoint.get("failed", 0))

    def message(self) -> str:
        failed = f", {self.failed} failed" if self.failed else ""
        return f"Simulated {len(self.finished)} of {self.total} dialogues{failed}"

    def session_for(self, dialogue: PlannedDialogue) -> int:
        """The dialogue's session, made and named in the checkpoint in one transaction."""
        known = self.sessions.get(str(dialogue.index))
        if known is not None and ChatSession.objects.filter(pk=known).exists():
            # Only this job talks in its sessions, so a reply still awaited belongs to a run
            # that died; without this, exchange() would wait for it to go stale.
            ChatSession.objects.filter(pk=known).update(replying_since=None)
            return known
        lang = self.campaign.lang
        with transaction.atomic():
            session = ChatSession.objects.create(
                system=dialogue.system,
                task=dialogue.task,
                campaign=self.campaign,
                kind=ChatSession.Kind.SIMULATED,
                persona={**dialogue.persona.as_record(lang), "simulator": self.simulator},
                user=None,
                lang=lang,
                today=self.campaign.today,
                status=ChatSession.Status.OPEN,
            )
            self.sessions[str(dialogue.index)] = session.pk
            self._save()
        return session.pk

    def finish(self, dialogue: PlannedDialogue, problem: str | None) -> None:
        job = self.context.job
        with transaction.atomic():
            if problem is None:
                self.rated += 1
            else:
                self.failed += 1
                job.errors = [
                    *job.errors,
                    f"{dialogue.task.key} × {dialogue.system.slug} × {dialogue.persona.key}: "
                    f"{problem}",
                ]
            self.finished.add(dialogue.index)
            self._save()
        self.context.progress(len(self.finished), message=self.message())

    def _save(self) -> None:
        job = self.context.job
        self.context.checkpoint.update(
            sessions=self.sessions,
            finished=sorted(self.finished),
            rated=self.rated,
            failed=self.failed,
        )
        Job.objects.filter(pk=job.pk).update(
            checkpoint=self.context.checkpoint,
            errors=job.errors,
            done=len(self.finished),
            heartbeat_at=timezone.now(),
        )

    def goal_met_count(self) -> int:
        sessions = (
            ChatSession.objects.filter(pk__in=self.sessions.values())
            .select_related("task")
            .prefetch_related("bookings")
        )
        return sum(
            1
            for session in sessions
            if session.task is not None
            and goal_met(session.task.goal, list(session.bookings.all()), session.today)
        )


async def _simulate(
    dialogue: PlannedDialogue, llm: LLMClient, run: SimulationRun, campaign: Campaign
) -> None:
    session_id = await sync_to_async(run.session_for)(dialogue)
    voice = Voice(
        persona=dialogue.persona.description(campaign.lang),
        task=dialogue.task.description(campaign.lang),
        lang=campaign.lang,
        timeout=campaign.reply_timeout,
        max_turns=campaign.max_turns,
    )
    snapshot = await sync_to_async(_snapshot)(session_id)
    problem = None
    if snapshot.is_open:
        problem = await hold_dialogue(llm, session_id, voice)
    if problem is None and not snapshot.rated:
        problem = await rate_dialogue(llm, session_id, voice)
    await sync_to_async(run.finish)(dialogue, problem)


async def _simulate_all(
    plan: Sequence[PlannedDialogue],
    config: LLMConfig,
    purpose: str,
    run: SimulationRun,
    campaign: Campaign,
) -> None:
    pending = iter(plan)
    async with LLMClient(config, purpose=purpose) as llm:

        async def work() -> None:
            for dialogue in pending:
                await _simulate(dialogue, llm, run, campaign)

        workers = [asyncio.create_task(work()) for _ in range(min(config.concurrency, len(plan)))]
        try:
            await asyncio.gather(*workers)
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)


def plan_dialogues(
    campaign: Campaign, tasks: Sequence[str], systems: Sequence[str], personas: Sequence[str]
) -> list[PlannedDialogue]:
    """One dialogue per (task, system, persona), in that nesting order."""
    cards = {card.key: card for card in campaign.tasks.filter(key__in=tasks)}
    found = {system.slug: system for system in campaign.systems.filter(slug__in=systems)}
    missing = [key for key in tasks if key not in cards] + [
        slug for slug in systems if slug not in found
    ]
    if missing:
        raise ValueError(f"not in campaign {campaign.name!r}: {', '.join(missing)}")
    chosen = parse_personas(",".join(personas))
    combinations = [
        (cards[key], found[slug], persona)
        for key in tasks
        for slug in systems
        for persona in chosen
    ]
    return [
        PlannedDialogue(index, task, system, persona)
        for index, (task, system, persona) in enumerate(combinations)
    ]


@job_kind(SIMULATE_JOB)
def simulate_campaign(context: JobContext) -> dict[str, Any]:
    """params: campaign (id), tasks (keys), systems (slugs), personas (keys), simulator, llm."""
    params = context.params
    campaign = Campaign.objects.filter(pk=params["campaign"]).first()
    if campaign is None:
        raise JobError(f"there is no live campaign {params['campaign']}")
    try:
        config = LLMConfig.from_config(params["llm"])
        plan = plan_dialogues(campaign, params["tasks"], params["systems"], params["personas"])
    except (LLMConfigError, ValueError) as error:
        raise JobError(str(error)) from None
    if not world_covers(campaign.today):
        raise JobError(
            f"the booking world does not cover {campaign.today}; build it with "
            f"'python manage.py build_booking_world --start {campaign.today}'"
        )
    run = SimulationRun(context, campaign, str(params["simulator"]), len(plan))
    todo = [dialogue for dialogue in plan if dialogue.index not in run.finished]
    context.progress(len(run.finished), len(plan), run.message(), force=True)
    purpose = job_purpose(context.job)
    try:
        async_to_sync(_simulate_all)(todo, config, purpose, run, campaign)
    except LLMError as error:
        raise JobError(
            f"the LLM endpoint failed ({error.reason}); resume the job to go on where it stopped"
        ) from None
    return {
        "campaign": campaign.name,
        "simulator": run.simulator,
        "dialogues": len(plan),
        "rated": run.rated,
        "failed": run.failed,
        "goal_met": run.goal_met_count(),
        **Usage.of(purpose).as_result(),
    }


def create_simulation_job(
    campaign: Campaign,
    llm: dict[str, Any],
    personas: Iterable[Persona],
    *,
    tasks: Iterable[str] = (),
    systems: Iterable[str] = (),
    user: Any = None,
) -> Job:
    """A simulation job, not yet started; no tasks or systems means all of the campaign's.

    Raises ValueError when the settings cannot work or name something outside the campaign.
    """
    settings = {**llm, "cache": True}
    config = LLMConfig.from_config(settings)
    task_keys = list(tasks) or list(campaign.tasks.order_by("key").values_list("key", flat=True))
    slugs = list(systems) or list(campaign.systems.order_by("slug").values_list("slug", flat=True))
    persona_keys = [persona.key for persona in personas]
    plan = plan_dialogues(campaign, task_keys, slugs, persona_keys)
    if not plan:
        raise ValueError("the simulation holds no dialogue: choose tasks, systems and personas")
    return jobs.create(
        SIMULATE_JOB,
        {
            "campaign": campaign.pk,
            "tasks": task_keys,
            "systems": slugs,
            "personas": persona_keys,
            "simulator": f"{config.model}@{SIMULATOR_VERSION}",
            "llm": settings,
        },
        user=user,
    )


def simulation_jobs(campaign: Campaign) -> list[Job]:
    return list(
        Job.objects.filter(kind=SIMULATE_JOB, params__campaign=campaign.pk).order_by(
            "-created_at", "-id"
        )
    )


# To annotation -----------------------------------------------------------------------------


def annotation_rows(
    campaign: Campaign, kinds: Sequence[str] = (ChatSession.Kind.SIMULATED,)
) -> list[dict[str, Any]]:
    """The campaign's ended dialogues of ``kinds`` as transcripts in the import shape.

    ``system`` holds the system's slug, which only coordinators see in annotation; the
    alias, task, persona, rating and goal check travel in the metadata.
    """
    utterances = Prefetch(
        "messages",
        queryset=Message.objects.filter(role__in=[Message.Role.USER, Message.Role.SYSTEM]).order_by(
            "position"
        ),
        to_attr="utterances",
    )
    sessions = (
        campaign.sessions.filter(kind__in=kinds, status=ChatSession.Status.ENDED)
        .exclude(end_reason=ChatSession.EndReason.ABANDONED)
        .select_related("system", "task", "rating")
        .prefetch_related(utterances, "bookings")
        .order_by("pk")
    )
    rows = []
    for session in sessions:
        turns = [
            {"role": message.role, "text": message.text}
            | ({"feelings": message.feelings} if message.feelings else {})
            for message in session.utterances
        ]
        if not turns:
            continue
        rating = getattr(session, "rating", None)
        row: dict[str, Any] = {
            "id": f"live-{campaign.pk}-{session.pk}",
            "system": session.system.slug,
            "dataset": f"live: {campaign.name}"[:100],
            "lang": session.lang,
            "turns": turns,
            "metadata": {
                "live_campaign": campaign.name,
                "session": session.pk,
                "kind": session.kind,
                "task": session.task.key if session.task else None,
                "alias": session.system.alias,
                "end_reason": session.end_reason,
                "goal_met": goal_met(session.task.goal, list(session.bookings.all()), session.today)
                if session.task
                else None,
                "rating": {
                    "completed": rating.completed,
                    "satisfaction": rating.satisfaction,
                    "fluency": rating.fluency,
                    "guidance": rating.guidance,
                    "reasons": rating.reasons,
                }
                if rating
                else None,
            },
        }
        if session.kind == ChatSession.Kind.SIMULATED and session.persona:
            row["persona"] = {
                key: session.persona[key]
                for key in ("emotion", "age_group", "text")
                if key in session.persona
            }
            row["metadata"]["simulator"] = session.persona.get("simulator")
        rows.append(row)
    return rows


def send_to_annotation(
    campaign: Campaign,
    annotation_campaign: str,
    kinds: Sequence[str] = (ChatSession.Kind.SIMULATED,),
) -> ImportResult:
    """Import the campaign's ended dialogues into an annotation campaign (made if new).

    Sending again updates the same transcripts. Raises ``annotation.imports.problems.ImportFailed``
    when there is nothing to send.
    """
    return import_rows(
        annotation_campaign,
        annotation_rows(campaign, kinds),
        source=f"live campaign {campaign.name}",
    )
