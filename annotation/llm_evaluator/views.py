"""Coordinator pages that start an LLM evaluator on an annotation campaign.

The job runs in the server process; the page sends the coordinator to the job's own page,
whose progress bar the server pushes live. The scores land where the agreement report reads
them, under the evaluator's name.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from annotation.llm_evaluator.forms import ScoringForm
from annotation.llm_evaluator.job import create_scoring_job, evaluators, scoring_jobs
from annotation.llm_evaluator.prompt import PROMPT_VERSION
from annotation.models import Campaign
from evalsite import jobs
from evalsite.models import Job
from evalsite.roles import coordinator_required


@coordinator_required
def llm_index(request: HttpRequest) -> HttpResponse:
    """Every annotation campaign, with the evaluators that have scored it so far."""
    rows = [
        {"campaign": campaign, "evaluators": evaluators(campaign)}
        for campaign in Campaign.objects.select_related("rubric")
    ]
    return render(request, "annotation/llm/index.html", {"rows": rows})


def _started_job(form: ScoringForm, campaign: Campaign, user: Any) -> Job | None:
    """The started job of a valid form, or None with the reason added to the form."""
    try:
        job = create_scoring_job(
            campaign,
            form.llm_settings(form.cleaned_data),
            label=form.cleaned_data.get("label", ""),
            user=user,
            few_shot=form.cleaned_data.get("few_shot") or 0,
        )
    except ValueError as error:
        form.add_error("label", str(error))
        return None
    jobs.start(job)
    return job


@coordinator_required
@require_http_methods(["GET", "POST"])
def llm_campaign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Start an LLM evaluator on one campaign; see its earlier runs, their progress and cost."""
    campaign = get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)
    form = ScoringForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        job = _started_job(form, campaign, request.user)
        if job is not None:
            return redirect("job_detail", job_id=job.pk)
    return render(
        request,
        "annotation/llm/campaign.html",
        {
            "campaign": campaign,
            "form": form,
            "runs": scoring_jobs(campaign),
            "evaluators": evaluators(campaign),
            "prompt_version": PROMPT_VERSION,
        },
        status=400 if form.is_bound else 200,
    )
