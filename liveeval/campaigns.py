"""Campaign life cycle: opening makes the plan, judges come and go, progress and results.

The plan itself is pure (``liveeval.assignment``); here it becomes ChatSession
rows, one per (judge, task, system) slot, in the judge's queue order. A pending
session is a slot nobody has started; the judge's "next conversation" opens it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext

from liveeval import aliases, assignment, chat
from liveeval.assignment import Replan, Slot, SlotStatus
from liveeval.booking.goals import goal_met
from liveeval.metrics import SessionRow
from liveeval.models import Campaign, ChatSession


class CampaignError(Exception):
    """A campaign action that cannot be done; the message says why."""


def _design(campaign: Campaign) -> tuple[list[int], list[int], list[int]]:
    tasks = sorted(campaign.tasks.values_list("pk", flat=True))
    systems = sorted(campaign.systems.values_list("pk", flat=True))
    judges = sorted(campaign.judges.values_list("pk", flat=True))
    return tasks, systems, judges


def _slot_status(session: ChatSession, n_messages: int) -> SlotStatus:
    if session.status == ChatSession.Status.ENDED:
        return SlotStatus.DONE
    if session.status == ChatSession.Status.OPEN and n_messages:
        return SlotStatus.STARTED
    return SlotStatus.PENDING


def _live_sessions(campaign: Campaign) -> Any:
    return (
        campaign.sessions.filter(kind=ChatSession.Kind.JUDGED)
        .exclude(end_reason=ChatSession.EndReason.ABANDONED)
        .annotate(n_messages=Count("messages"))
    )


def current_slots(campaign: Campaign) -> list[Slot]:
    return [
        Slot(
            judge=session.user_id,
            task=session.task_id,
            system=session.system_id,
            position=session.position or 0,
            status=_slot_status(session, session.n_messages),
        )
        for session in _live_sessions(campaign)
    ]


def _task_languages(campaign: Campaign) -> dict[int, str]:
    return {task.pk: campaign.dialogue_lang(task) for task in campaign.tasks.all()}


def _pending_session(
    campaign: Campaign, judge_id: int, task: int, system: int, langs: dict[int, str]
) -> ChatSession:
    return ChatSession(
        campaign=campaign,
        kind=ChatSession.Kind.JUDGED,
        user_id=judge_id,
        task_id=task,
        system_id=system,
        lang=langs[task],
        today=campaign.today,
        status=ChatSession.Status.PENDING,
    )


def open_campaign(campaign: Campaign) -> int:
    """Freeze the design and create every judge's queue; returns the number of sessions."""
    with transaction.atomic():
        # Two coordinators pressing "open" at once must not make two plans.
        locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
        if locked.status != Campaign.Status.DRAFT:
            raise CampaignError(f"campaign {campaign.name!r} is {campaign.status}, not a draft")
        tasks, systems, judges = _design(campaign)
        lowest_penalty = min(campaign.tasks.values_list("turn_penalty", flat=True), default=None)
        if lowest_penalty is not None and campaign.max_turns > lowest_penalty:
            raise CampaignError(
                f"the turn limit {campaign.max_turns} exceeds the lowest task penalty "
                f"{lowest_penalty}"
            )
        try:
            plan = assignment.make_plan(
                tasks, systems, judges, campaign.judgements_per_pair, campaign.seed
            )
        except assignment.PlanError as exc:
            raise CampaignError(str(exc)) from None
        langs = _task_languages(campaign)
        sessions = []
        for slot in plan:
            session = _pending_session(
                campaign, int(slot.judge), int(slot.task), int(slot.system), langs
            )
            session.position = slot.position
            sessions.append(session)
        ChatSession.objects.bulk_create(sessions)
        campaign.status = Campaign.Status.OPEN
        campaign.opened_at = timezone.now()
        campaign.save(update_fields=["status", "opened_at"])
        aliases.campaign_codes(campaign)
    return len(sessions)


def close_campaign(campaign: Campaign) -> int:
    """Close the campaign and end its open conversations; how many were ended.

    Their chat pages are told at once; their sockets and booking-API tokens refuse
    anything more, because both take only open conversations.
    """
    with transaction.atomic():
        campaign.status = Campaign.Status.CLOSED
        campaign.closed_at = timezone.now()
        campaign.save(update_fields=["status", "closed_at"])
        live = list(campaign.sessions.select_for_update().filter(status=ChatSession.Status.OPEN))
        for session in live:
            session.end(ChatSession.EndReason.CAMPAIGN_CLOSED)
        ended = [session.pk for session in live]
        transaction.on_commit(lambda: chat.announce_ended(ended))
    return len(ended)


def _apply(campaign: Campaign, change: Replan) -> None:
    for slot in change.removed:
        doomed = (
            campaign.sessions.filter(
                kind=ChatSession.Kind.JUDGED,
                user_id=int(slot.judge),
                task_id=int(slot.task),
                system_id=int(slot.system),
            )
            .exclude(end_reason=ChatSession.EndReason.ABANDONED)
            .first()
        )
        if doomed is None:
            continue
        if doomed.messages.exists():
            # Work already done is never thrown away; it just stops counting.
            doomed.end(ChatSession.EndReason.ABANDONED)
        else:
            doomed.delete()
    langs = _task_languages(campaign)
    fresh = []
    for slot in change.added:
        session = _pending_session(
            campaign, int(slot.judge), int(slot.task), int(slot.system), langs
        )
        session.position = slot.position
        fresh.append(session)
    ChatSession.objects.bulk_create(fresh)


def add_judge(campaign: Campaign, judge: Any) -> Replan | None:
    """Add a judge; in an open campaign they take over pending work to even out the loads."""
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)
        if campaign.judges.filter(pk=judge.pk).exists():
            return None
        tasks, systems, judges = _design(campaign)
        campaign.judges.add(judge)
        if campaign.status != Campaign.Status.OPEN:
            return None
        change = assignment.add_judges(
            current_slots(campaign),
            [judge.pk],
            judges,
            tasks=tasks,
            systems=systems,
            k=campaign.judgements_per_pair,
            seed=campaign.seed,
        )
        _apply(campaign, change)
    return change


def remove_judge(campaign: Campaign, judge: Any) -> Replan | None:
    """Take a judge out; their pending work goes to the others, within every guarantee."""
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)
        tasks, systems, judges = _design(campaign)
        if judge.pk not in judges:
            return None
        remaining = [pk for pk in judges if pk != judge.pk]
        campaign.judges.remove(judge)
        if campaign.status != Campaign.Status.OPEN:
            return None
        slots = current_slots(campaign)
        try:
            change = assignment.replan_without(
                slots,
                judge.pk,
                remaining,
                tasks=tasks,
                systems=systems,
                k=campaign.judgements_per_pair,
                seed=campaign.seed,
            )
        except assignment.PlanError as exc:
            raise CampaignError(str(exc)) from None
        _apply(campaign, change)
    return change


def release_judge(campaign: Campaign, judge: Any) -> list[int]:
    """Take a deactivated judge out of ``campaign``; the conversations they can no longer
    finish or rate (open, or ended without a rating) are kept as abandoned, and their pairs
    go to the other judges with the pending ones. Returns the abandoned conversations."""
    with transaction.atomic():
        unfinished = list(
            # Only the sessions' rows: the rating, an outer join, cannot be locked on PostgreSQL.
            campaign.sessions.select_for_update(of=("self",))
            .filter(kind=ChatSession.Kind.JUDGED, user=judge)
            .filter(
                Q(status=ChatSession.Status.OPEN)
                | Q(status=ChatSession.Status.ENDED, rating__isnull=True)
            )
            .exclude(end_reason=ChatSession.EndReason.ABANDONED)
        )
        for session in unfinished:
            session.end(ChatSession.EndReason.ABANDONED)
        remove_judge(campaign, judge)
        abandoned = [session.pk for session in unfinished]
        transaction.on_commit(lambda: chat.announce_ended(abandoned))
    return abandoned


def flagged_pairs(campaign: Campaign) -> list[tuple[Any, Any]]:
    """(task, system) pairs that fewer than K judges can still take."""
    if campaign.status == Campaign.Status.DRAFT:
        return []
    tasks, systems, _judges = _design(campaign)
    short = assignment.short_pairs(
        current_slots(campaign), tasks, systems, campaign.judgements_per_pair
    )
    task_names = dict(campaign.tasks.values_list("pk", "key"))
    system_names = dict(campaign.systems.values_list("pk", "name"))
    return [(task_names[int(task)], system_names[int(system)]) for task, system in short]


def next_pending_session(user: Any) -> ChatSession | None:
    """The judge's session to work on: an unfinished or unrated one first, then the next planned.

    A planned conversation with a disabled system waits, and the judge gets the next one of
    their plan instead; conversations already open continue whatever their system's state.
    """
    mine = ChatSession.objects.filter(
        user=user,
        kind=ChatSession.Kind.JUDGED,
        campaign__status=Campaign.Status.OPEN,
        campaign__archived_at__isnull=True,
    )
    unfinished = mine.filter(status=ChatSession.Status.OPEN).order_by("started_at", "pk").first()
    if unfinished is not None:
        return unfinished
    unrated = (
        mine.filter(status=ChatSession.Status.ENDED, rating__isnull=True)
        .exclude(end_reason=ChatSession.EndReason.ABANDONED)
        .order_by("ended_at")
        .first()
    )
    if unrated is not None:
        return unrated
    return (
        mine.filter(status=ChatSession.Status.PENDING, system__enabled=True)
        .order_by("campaign_id", "position")
        .first()
    )


@dataclass
class Progress:
    done: int = 0
    in_progress: int = 0
    pending: int = 0
    label: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.done + self.in_progress + self.pending

    def percent(self, part: int) -> int:
        return round(100 * part / self.total) if self.total else 0

    @property
    def done_percent(self) -> int:
        return self.percent(self.done)

    @property
    def in_progress_percent(self) -> int:
        return self.percent(self.in_progress)


def progress(campaign: Campaign) -> dict[str, Any]:
    """Done (rated), in progress (open or awaiting a rating) and pending, per system and judge."""
    rows = (
        campaign.sessions.filter(kind=ChatSession.Kind.JUDGED)
        .exclude(end_reason=ChatSession.EndReason.ABANDONED)
        .values("system_id", "system__name", "user__username", "status")
        .annotate(n=Count("pk"), rated=Count("pk", filter=Q(rating__isnull=False)))
    )
    overall = Progress(label=gettext("all conversations"))
    by_system: dict[str, Progress] = defaultdict(Progress)
    by_judge: dict[str, Progress] = defaultdict(Progress)
    # Each system by its name and the alias it has in this campaign, as the page's design says.
    names = aliases.campaign_names(campaign)
    for row in rows:
        system = f"{row['system__name']} ({names.get(row['system_id'], '—')})"
        for bucket in (overall, by_system[system], by_judge[row["user__username"]]):
            if row["status"] == ChatSession.Status.PENDING:
                bucket.pending += row["n"]
            elif row["status"] == ChatSession.Status.OPEN:
                bucket.in_progress += row["n"]
            else:
                bucket.done += row["rated"]
                bucket.in_progress += row["n"] - row["rated"]
    for label, bucket in [*by_system.items(), *by_judge.items()]:
        bucket.label = label
    return {
        "overall": overall,
        "by_system": sorted(by_system.values(), key=lambda p: p.label),
        "by_judge": sorted(by_judge.values(), key=lambda p: p.label),
    }


def session_rows(
    campaign: Campaign, *, kinds: tuple[str, ...] = ("judged",), lang: str | None = None
) -> list[SessionRow]:
    """Every rated session of the campaign (in dialogue language ``lang``, if given) as a row."""
    chosen = campaign.sessions.filter(lang=lang) if lang else campaign.sessions.all()
    sessions = (
        chosen.filter(kind__in=kinds, rating__isnull=False)
        .exclude(end_reason=ChatSession.EndReason.ABANDONED)
        .select_related("rating", "task")
        .prefetch_related("bookings")
        .annotate(n_turns=Count("messages", filter=Q(messages__role__in=["user", "system"])))
    )
    rows = []
    for session in sessions:
        rating = session.rating
        task = session.task
        assert task is not None
        rows.append(
            SessionRow(
                system=session.system_id,
                task=task.key,
                judge=session.user_id if session.user_id is not None else f"sim-{session.pk}",
                completed=rating.completed,
                turns=session.n_turns,
                penalty=task.turn_penalty,
                satisfaction=rating.satisfaction,
                fluency=rating.fluency,
                guidance=rating.guidance,
                auto_completed=goal_met(task.goal, list(session.bookings.all()), session.today),
                source="simulated" if session.kind == ChatSession.Kind.SIMULATED else "human",
            )
        )
    return rows
