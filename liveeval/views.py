from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, F, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from evalsite import live_changes, roles
from evalsite.archive import CampaignArchived
from evalsite.http import HtmxHttpRequest
from liveeval import campaigns, chat, rating, results, roster
from liveeval.forms import CampaignForm, RatingForm, SandboxForm, TaskLanguagesForm
from liveeval.home import judge_section
from liveeval.models import Campaign, ChatSession, DialogueLang, DialogueSystem, TaskCard


@dataclass(frozen=True)
class TaskRow:
    task: TaskCard
    title: str
    preview: str
    dialogue_lang: str


def _own_session(request: HttpRequest, session_id: int) -> ChatSession:
    session = get_object_or_404(
        ChatSession.objects.select_related("system", "task", "campaign"), pk=session_id
    )
    if session.campaign is not None and session.campaign.is_archived:
        raise CampaignArchived(session.campaign.name)
    if not chat.may_chat(request.user, session):
        raise PermissionDenied
    return session


@roles.judge_required
@require_http_methods(["GET", "POST"])
def next_session(request: HttpRequest) -> HttpResponse:
    """POST opens the judge's next conversation; GET (a bookmark, a reload) shows the button."""
    if request.method == "GET":
        part = judge_section(request.user)
        return render(request, "liveeval/next.html", {"ctx": part.context})
    with transaction.atomic():
        session = campaigns.next_pending_session(request.user)
        if session is None:
            messages.info(request, _("You have no conversation waiting. Thank you!"))
            return redirect("home")
        if session.status == ChatSession.Status.PENDING:
            session.status = ChatSession.Status.OPEN
            session.save(update_fields=["status"])
    return redirect("liveeval:chat", session_id=session.pk)


@login_required
def chat_page(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _own_session(request, session_id)
    if session.status == ChatSession.Status.PENDING:
        raise PermissionDenied
    context = chat.page_context(session)
    if context["needs_rating"]:
        context["rating_form"] = RatingForm()
    return render(request, "liveeval/chat.html", context)


@login_required
@require_POST
def end_session(request: HtmxHttpRequest, session_id: int) -> HttpResponse:
    session = _own_session(request, session_id)
    if session.is_open:
        session.end(ChatSession.EndReason.USER)
        chat.announce_ended([session.pk])
    context = chat.chat_context(session)
    if context["needs_rating"]:
        context["rating_form"] = RatingForm()
    if request.htmx:
        return render(request, "liveeval/_rating_panel.html", context)
    return redirect("liveeval:chat", session_id=session.pk)


@login_required
@require_http_methods(["GET", "POST"])
def rate_session(request: HtmxHttpRequest, session_id: int) -> HttpResponse:
    session = _own_session(request, session_id)
    if request.method == "GET":  # an address kept after posting: the rating is on the chat page
        return redirect("liveeval:chat", session_id=session.pk)
    refused = rating.refusal(session)
    if refused:
        return HttpResponse(refused, status=409)
    form = RatingForm(request.POST)
    if form.is_valid():
        if not rating.store(session, form):
            return HttpResponse(rating.already_rated(), status=409)
        if not request.htmx:
            messages.success(request, _("Your rating is saved."))
            return redirect("liveeval:chat", session_id=session.pk)
    context = {**chat.chat_context(session), "rating_form": form}
    if request.htmx:
        # htmx swaps only 2xx answers, and the form with its errors must replace the old one.
        return render(request, "liveeval/_rating_panel.html", context)
    context.update(chat.page_context(session))
    return render(request, "liveeval/chat.html", context, status=200 if form.is_valid() else 422)


@roles.coordinator_required
def sandbox(request: HttpRequest) -> HttpResponse:
    form = SandboxForm(
        request.POST or None,
        initial={"lang": "zh", "today": timezone.localdate()},
    )
    if request.method == "POST" and form.is_valid():
        system: DialogueSystem = form.cleaned_data["system"]
        session = ChatSession.objects.create(
            system=system,
            kind=ChatSession.Kind.SANDBOX,
            user_id=request.user.pk,
            lang=form.cleaned_data["lang"],
            today=form.cleaned_data["today"],
            status=ChatSession.Status.OPEN,
        )
        return redirect("liveeval:chat", session_id=session.pk)
    recent = ChatSession.objects.filter(
        kind=ChatSession.Kind.SANDBOX, user_id=cast(int, request.user.pk)
    )[:10]
    return render(request, "liveeval/sandbox.html", {"form": form, "recent": recent})


# Coordinator pages --------------------------------------------------------------------------


@roles.coordinator_required
def campaign_list(request: HttpRequest) -> HttpResponse:
    campaigns = Campaign.objects.order_by(
        F("archived_at").asc(nulls_first=True), "-created_at", "-id"
    ).annotate(
        n_sessions=Count("sessions", filter=Q(sessions__kind=ChatSession.Kind.JUDGED)),
        n_rated=Count("sessions", filter=Q(sessions__rating__isnull=False)),
    )
    return render(request, "liveeval/campaign_list.html", {"campaigns": campaigns})


@roles.coordinator_required
def campaign_edit(request: HttpRequest, campaign_id: int | None = None) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id) if campaign_id else None
    if campaign is not None and campaign.status == Campaign.Status.CLOSED:
        raise PermissionDenied
    # Defaults for a new campaign only: a form's initial values override its instance's.
    new = {"today": timezone.localdate(), "judgements_per_pair": 3, "max_turns": 20}
    form = CampaignForm(request.POST or None, instance=campaign, initial=None if campaign else new)
    if request.method == "POST" and form.is_valid():
        campaign = form.save_campaign(created_by=request.user)
        messages.success(request, _("Campaign saved."))
        return redirect("liveeval:campaign_detail", campaign_id=campaign.pk)
    return render(request, "liveeval/campaign_form.html", {"form": form, "campaign": campaign})


def _progress_context(campaign: Campaign) -> dict[str, Any]:
    return {
        "campaign": campaign,
        "progress": campaigns.progress(campaign),
        "sessions": campaign.sessions.filter(kind=ChatSession.Kind.JUDGED)
        .exclude(status=ChatSession.Status.PENDING)
        .select_related("system", "task", "user", "rating")
        .order_by("-ended_at", "-pk")[:200],
    }


@roles.coordinator_required
def campaign_detail(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    aliases = results.alias_names(campaign)
    context = {
        **_progress_context(campaign),
        "flagged": campaigns.flagged_pairs(campaign),
        "systems": [(system, aliases[system.pk]) for system in campaign.systems.order_by("slug")],
        "disabled_systems": campaign.systems.filter(enabled=False).order_by("slug"),
        "tasks": _task_rows(campaign),
        "judges": campaign.judges.order_by("username"),
        "changes_pushed": live_changes.pushes_are_shared(),
        "judge_rows": roster.judge_rows(campaign),
    }
    if campaign.lang == Campaign.Lang.BILINGUAL and campaign.status == Campaign.Status.DRAFT:
        context["languages_form"] = TaskLanguagesForm(campaign=campaign)
    return render(request, "liveeval/campaign_detail.html", context)


def _task_rows(campaign: Campaign) -> list[TaskRow]:
    """Each task card as the campaign page lists it: title, preview and dialogue language."""
    lang = get_language() or "en"
    return [
        TaskRow(
            task=task,
            title=task.title(lang),
            preview=Truncator(task.description(lang)).chars(160),
            dialogue_lang=str(DialogueLang(campaign.dialogue_lang(task)).label),
        )
        for task in campaign.tasks.order_by("key")
    ]


@roles.coordinator_required
def campaign_progress(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign page's progress part, fetched again while the campaign runs."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    return render(request, "liveeval/_campaign_progress.html", _progress_context(campaign))


@roles.coordinator_required
def campaign_roster(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign page's roster of judges, fetched again while the campaign runs."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    context = {"campaign": campaign, "judge_rows": roster.judge_rows(campaign)}
    return render(request, "liveeval/_roster.html", context)


@roles.coordinator_required
@require_POST
def campaign_action(request: HttpRequest, campaign_id: int, action: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    try:
        if action == "open":
            created = campaigns.open_campaign(campaign)
            messages.success(
                request, _("Campaign opened: %(n)s conversations planned.") % {"n": created}
            )
        elif action == "close":
            ended = campaigns.close_campaign(campaign)
            messages.success(
                request, _("Campaign closed: %(n)s open conversations ended.") % {"n": ended}
            )
        else:
            raise Http404
    except campaigns.CampaignError as exc:
        messages.error(request, str(exc))
    return redirect("liveeval:campaign_detail", campaign_id=campaign.pk)


@roles.coordinator_required
def leaderboard_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    lang = results.language_filter(request.GET.get("lang"))
    context = results.leaderboard_context(campaign, lang)
    return render(request, "liveeval/leaderboard.html", context)


@roles.coordinator_required
def session_review(request: HttpRequest, session_id: int) -> HttpResponse:
    session = get_object_or_404(
        ChatSession.objects.select_related("system", "task", "campaign", "user"), pk=session_id
    )
    return render(request, "liveeval/session_review.html", results.review_context(session))


@roles.coordinator_required
def campaign_export(request: HttpRequest, campaign_id: int, table: str, fmt: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    try:
        lang = results.language_filter(request.GET.get("lang"))
        return results.export_response(
            campaign, table, fmt, lang, exported_by=request.user.get_username()
        )
    except KeyError:
        raise Http404 from None
