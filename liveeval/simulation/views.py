"""Coordinator pages that run simulated judges on a live campaign and show their dialogues.

Simulation is a background job; the page sends the coordinator to the job's page, whose
progress bar the server pushes live. The simulated dialogues then appear here, on the
leaderboard beside the judges', and can be sent to an annotation campaign (annotation's page).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from evalsite import jobs
from evalsite.roles import coordinator_required
from liveeval.booking.goals import goal_met
from liveeval.models import Campaign, ChatSession, Rating
from liveeval.simulation.forms import SimulationForm
from liveeval.simulation.job import create_simulation_job, simulation_jobs
from liveeval.simulation.prompts import SIMULATOR_VERSION

SESSIONS_SHOWN = 200


@dataclass(frozen=True)
class SimulatedDialogue:
    """One row of the page's table of simulated dialogues."""

    session: ChatSession
    rating: Rating | None
    goal_met: bool | None


@coordinator_required
def simulation_index(request: HttpRequest) -> HttpResponse:
    campaigns = Campaign.objects.annotate(
        n_simulated=Count("sessions", filter=Q(sessions__kind=ChatSession.Kind.SIMULATED))
    )
    return render(request, "liveeval/simulation/index.html", {"campaigns": campaigns})


def _simulated_sessions(campaign: Campaign) -> list[SimulatedDialogue]:
    sessions = (
        campaign.sessions.filter(kind=ChatSession.Kind.SIMULATED)
        .select_related("system", "task", "rating")
        .prefetch_related("bookings")
        .order_by("-pk")[:SESSIONS_SHOWN]
    )
    return [
        SimulatedDialogue(
            session=session,
            rating=getattr(session, "rating", None),
            goal_met=goal_met(session.task.goal, list(session.bookings.all()), session.today)
            if session.task is not None
            else None,
        )
        for session in sessions
    ]


def _render_campaign(
    request: HttpRequest,
    campaign: Campaign,
    form: SimulationForm,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "liveeval/simulation/campaign.html",
        {
            "campaign": campaign,
            "form": form,
            "runs": simulation_jobs(campaign),
            "sessions": _simulated_sessions(campaign),
            "simulator_version": SIMULATOR_VERSION,
        },
        status=status,
    )


@coordinator_required
@require_http_methods(["GET", "POST"])
def simulation_campaign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Start simulated judges on one campaign; see their runs and dialogues."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    form = SimulationForm(request.POST or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            job = create_simulation_job(
                campaign,
                form.llm_settings(data),
                form.personas(),
                tasks=[task.key for task in data["tasks"]],
                systems=[system.slug for system in data["systems"]],
                user=request.user,
            )
        except ValueError as error:
            form.add_error(None, str(error))
        else:
            jobs.start(job)
            return redirect("job_detail", job_id=job.pk)
    return _render_campaign(request, campaign, form, status=400 if form.is_bound else 200)
