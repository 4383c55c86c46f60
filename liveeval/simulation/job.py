"""Simulated judges as a background job: one dialogue per (task, system, persona).

Simulation runs as the background job ``liveeval.simulate``, from the coordinator's page or
from ``manage.py simulate``; it is split into parts that several workers run at once, each
holding its share of the dialogues. Its dialogues are ChatSessions of kind ``simulated`` with the
persona, in the campaign but in no judge's queue, so they never take a judge's place; the
leaderboard sets them beside the judges' and measures how well they agree. The checkpoint
names each dialogue's session as soon as it exists, and a resumed job goes on from the stored
messages, so no dialogue is held twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from evalsite import jobs
from evalsite.agreement.phrases import Phrase
from evalsite.job_descriptions import JobDescription, JobLink, count, seconds
from evalsite.jobs import JobContext, JobError, job_kind
from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMConfigError
from evalsite.llm.runs import merge_results, run_with_llm, save_checkpoint
from evalsite.models import Job
from liveeval.booking.goals import goal_met
from liveeval.booking.world import world_covers
from liveeval.models import Campaign, ChatSession, DialogueSystem, TaskCard
from liveeval.simulation.dialogue import Voice, simulate_dialogue
from liveeval.simulation.personas import Persona, parse_personas
from liveeval.simulation.prompts import SIMULATOR_VERSION

SIMULATE_JOB = "liveeval.simulate"


@dataclass(frozen=True)
class PlannedDialogue:
    """One dialogue of a simulation: which task, which system, which persona."""

    index: int
    task: TaskCard
    system: DialogueSystem
    persona: Persona


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
        if self.failed:
            return Phrase(
                gettext_noop("Simulated %(done)s of %(total)s dialogues, %(failed)s failed"),
                done=len(self.finished),
                total=self.total,
                failed=self.failed,
            )
        return Phrase(
            gettext_noop("Simulated %(done)s of %(total)s dialogues"),
            done=len(self.finished),
            total=self.total,
        )

    def session_for(self, dialogue: PlannedDialogue) -> int:
        """The dialogue's session, made and named in the checkpoint in one transaction."""
        known = self.sessions.get(str(dialogue.index))
        if known is not None and ChatSession.objects.filter(pk=known).exists():
            # Only this job talks in its sessions, so a reply still awaited belongs to a run
            # that died; without this, exchange() would wait for it to go stale.
            ChatSession.objects.filter(pk=known).update(replying_since=None)
            return known
        lang = self.campaign.dialogue_lang(dialogue.task)
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
        save_checkpoint(
            self.context,
            len(self.finished),
            sessions=self.sessions,
            finished=sorted(self.finished),
            rated=self.rated,
            failed=self.failed,
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
    lang = campaign.dialogue_lang(dialogue.task)
    voice = Voice(
        persona=dialogue.persona.description(lang),
        task=dialogue.task.description(lang),
        lang=lang,
        timeout=campaign.reply_timeout,
        max_turns=campaign.max_turns,
    )
    problem = await simulate_dialogue(llm, session_id, voice)
    await sync_to_async(run.finish)(dialogue, problem)


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


def describe_simulation(job: Job) -> JobDescription:
    """Simulated judges in words: dialogues held and rated, and how many met their goal."""
    name = _("Simulated judges")
    campaign = Campaign.objects.filter(pk=job.params.get("campaign")).first()
    links = (
        (
            JobLink(
                _("Open campaign %(name)s") % {"name": campaign.name},
                reverse("liveeval:campaign_detail", args=[campaign.pk]),
            ),
        )
        if campaign is not None
        else ()
    )
    if job.status != Job.Status.DONE:
        return JobDescription(name, links=links)
    rated, goal = count(job.result.get("rated")), count(job.result.get("goal_met"))
    sentence = ngettext(
        "%(rated)s simulated dialogue held and rated in %(time)s; %(goal)s met its task's goal.",
        "%(rated)s simulated dialogues held and rated in %(time)s; %(goal)s met their task's goal.",
        rated,
    ) % {"rated": rated, "goal": goal, "time": seconds(job)}
    failed = count(job.result.get("failed"))
    details = (
        (
            ngettext("%(count)s dialogue failed.", "%(count)s dialogues failed.", failed)
            % {"count": failed},
        )
        if failed
        else ()
    )
    return JobDescription(name, sentence, details, links)


@job_kind(SIMULATE_JOB, split=True, merge=merge_results, describe=describe_simulation)
def simulate_campaign(context: JobContext) -> dict[str, Any]:
    """params: campaign (id), tasks (keys), systems (slugs), personas (keys), simulator, llm.

    Each part of the job holds its share of the dialogues."""
    params = context.params
    campaign = Campaign.objects.filter(pk=params["campaign"]).first()
    if campaign is None:
        raise JobError(f"there is no live campaign {params['campaign']}")
    try:
        config = LLMConfig.from_config(params["llm"])
        plan = context.share(
            plan_dialogues(campaign, params["tasks"], params["systems"], params["personas"]),
            key=lambda dialogue: dialogue.index,
        )
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
    usage = run_with_llm(
        context, config, todo, lambda llm, dialogue: _simulate(dialogue, llm, run, campaign)
    )
    return {
        "campaign": campaign.name,
        "simulator": run.simulator,
        "dialogues": len(plan),
        "rated": run.rated,
        "failed": run.failed,
        "goal_met": run.goal_met_count(),
        **usage.as_result(),
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
