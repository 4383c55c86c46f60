"""Coordinator pages that run simulated judges on a live campaign and send dialogues on.

Simulation is a background job; the page sends the coordinator to the job's page, whose
progress bar the server pushes live. The simulated dialogues then appear here, on the
leaderboard beside the judges', and can be sent to an annotation campaign.
"""

from __future__ import annotations

import itertools
from typing import Any

from django import forms
from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from annotation.imports.problems import ImportFailed
from annotation.llm_views import EndpointForm
from annotation.models import Campaign as AnnotationCampaign
from evalsite import jobs
from evalsite.roles import coordinator_required
from liveeval.booking.goals import goal_met
from liveeval.models import Campaign, ChatSession, DialogueSystem, TaskCard
from liveeval.personas import AGE_GROUPS, EMOTIONS, Persona
from liveeval.simulator import (
    SIMULATOR_VERSION,
    create_simulation_job,
    send_to_annotation,
    simulation_jobs,
)

SESSIONS_SHOWN = 200


class SimulationForm(EndpointForm):
    emotions = forms.MultipleChoiceField(
        label=gettext_lazy("Emotions"),
        choices=[(name, name) for name in EMOTIONS],
        widget=forms.CheckboxSelectMultiple,
    )
    age_groups = forms.MultipleChoiceField(
        label=gettext_lazy("Age groups"),
        choices=[(name, name) for name in AGE_GROUPS],
        widget=forms.CheckboxSelectMultiple,
    )
    tasks = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Tasks"),
        queryset=TaskCard.objects.none(),
        to_field_name="key",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("None chosen: every task of the campaign."),
    )
    systems = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Systems"),
        queryset=DialogueSystem.objects.none(),
        to_field_name="slug",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy(
            "None chosen: every system of the campaign. The simulated judge never learns "
            "which system it talks to."
        ),
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fields: dict[str, Any] = {
            "tasks": campaign.tasks.order_by("key"),
            "systems": campaign.systems.order_by("slug"),
        }
        for name, queryset in fields.items():
            field = self.fields[name]
            assert isinstance(field, forms.ModelMultipleChoiceField)
            field.queryset = queryset

    def personas(self) -> list[Persona]:
        return [
            Persona(emotion, age)
            for emotion, age in itertools.product(
                self.cleaned_data["emotions"], self.cleaned_data["age_groups"]
            )
        ]


class SendForm(forms.Form):
    annotation_campaign = forms.CharField(
        label=gettext_lazy("Annotation campaign"),
        max_length=200,
        help_text=gettext_lazy("Made with the default rubric if there is none by that name."),
    )
    kinds = forms.MultipleChoiceField(
        label=gettext_lazy("Dialogues"),
        choices=[
            (ChatSession.Kind.SIMULATED, gettext_lazy("Simulated judges")),
            (ChatSession.Kind.JUDGED, gettext_lazy("Human judges")),
        ],
        initial=[ChatSession.Kind.SIMULATED],
        widget=forms.CheckboxSelectMultiple,
    )


@coordinator_required
def simulation_index(request: HttpRequest) -> HttpResponse:
    campaigns = Campaign.objects.annotate(
        n_simulated=Count("sessions", filter=Q(sessions__kind=ChatSession.Kind.SIMULATED))
    )
    return render(request, "liveeval/simulation/index.html", {"campaigns": campaigns})


def _simulated_sessions(campaign: Campaign) -> list[dict[str, Any]]:
    sessions = (
        campaign.sessions.filter(kind=ChatSession.Kind.SIMULATED)
        .select_related("system", "task", "rating")
        .prefetch_related("bookings")
        .order_by("-pk")[:SESSIONS_SHOWN]
    )
    return [
        {
            "session": session,
            "rating": getattr(session, "rating", None),
            "goal_met": goal_met(session.task.goal, list(session.bookings.all()), session.today)
            if session.task is not None
            else None,
        }
        for session in sessions
    ]


def _render_campaign(
    request: HttpRequest,
    campaign: Campaign,
    form: SimulationForm,
    send_form: SendForm,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "liveeval/simulation/campaign.html",
        {
            "campaign": campaign,
            "form": form,
            "send_form": send_form,
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
    return _render_campaign(
        request, campaign, form, SendForm(), status=400 if form.is_bound else 200
    )


@coordinator_required
@require_POST
def simulation_send(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Send the campaign's ended dialogues to an annotation campaign as transcripts."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    send_form = SendForm(request.POST)
    if not send_form.is_valid():
        return _render_campaign(
            request, campaign, SimulationForm(campaign=campaign), send_form, status=400
        )
    name = send_form.cleaned_data["annotation_campaign"].strip()
    try:
        result = send_to_annotation(campaign, name, send_form.cleaned_data["kinds"])
    except ImportFailed as failure:
        messages.error(request, failure.summary)
        return redirect("simulation:campaign", campaign_id=campaign.pk)
    messages.success(
        request,
        _("%(n)s dialogues sent to the annotation campaign %(name)s.")
        % {"n": result.transcripts, "name": name},
    )
    return redirect(AnnotationCampaign.objects.get(name=name))
