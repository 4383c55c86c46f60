"""Coordinator pages that start an LLM evaluator on an annotation campaign.

The job runs in the server process; the page sends the coordinator to the job's own page,
whose progress bar the server pushes live. The scores land where the agreement report reads
them, under the evaluator's name.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from annotation.llm_evaluator import (
    PROMPT_VERSION,
    create_scoring_job,
    evaluator_name,
    evaluators,
    scoring_jobs,
)
from annotation.models import Campaign
from evalsite import jobs
from evalsite.llm import LLMConfig, LLMConfigError
from evalsite.roles import coordinator_required


class EndpointForm(forms.Form):
    """Where an OpenAI-compatible model is and how hard to call it; never the key itself."""

    base_url = forms.URLField(
        label=_("Base URL"),
        help_text=_(
            "The OpenAI-compatible endpoint, e.g. https://api.openai.com/v1, "
            "http://127.0.0.1:8001/v1 (vLLM) or http://127.0.0.1:11434/v1 (Ollama)."
        ),
        assume_scheme="https",
    )
    model = forms.CharField(label=_("Model"), max_length=200)
    api_key_env = forms.CharField(
        label=_("API key variable"),
        required=False,
        max_length=100,
        help_text=_(
            "The name of the server's environment variable that holds the key; "
            "leave empty for local servers."
        ),
    )
    concurrency = forms.IntegerField(
        label=_("Requests at once"), min_value=1, max_value=64, initial=4
    )
    price_per_1k_prompt = forms.DecimalField(
        label=_("Price per 1,000 prompt tokens"), required=False, min_value=Decimal(0)
    )
    price_per_1k_completion = forms.DecimalField(
        label=_("Price per 1,000 completion tokens"), required=False, min_value=Decimal(0)
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            LLMConfig.from_config(self.llm_settings(data))
        except LLMConfigError as error:
            raise forms.ValidationError(str(error), code="llm_settings") from None
        return data

    @staticmethod
    def llm_settings(data: dict[str, Any]) -> dict[str, Any]:
        """The cleaned fields as ``LLMConfig`` settings (prices as text, to store in JSON)."""
        settings: dict[str, Any] = {
            "base_url": data["base_url"],
            "model": data["model"].strip(),
            "concurrency": data["concurrency"],
        }
        if data.get("api_key_env"):
            settings["api_key_env"] = data["api_key_env"].strip()
        for key in ("price_per_1k_prompt", "price_per_1k_completion"):
            if data.get(key) is not None:
                settings[key] = str(data[key])
        return settings


class ScoringForm(EndpointForm):
    label = forms.CharField(
        label=_("Evaluator label"),
        required=False,
        max_length=40,
        help_text=_(
            "Optional. The scores are stored as <label>:<model>@%(version)s, "
            "or <model>@%(version)s without a label."
        )
        % {"version": PROMPT_VERSION},
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors:
            try:
                evaluator_name(data["model"], data.get("label", ""))
            except ValueError as error:
                self.add_error("label", str(error))
        return data


@coordinator_required
def llm_index(request: HttpRequest) -> HttpResponse:
    """Every annotation campaign, with the evaluators that have scored it so far."""
    rows = [
        {"campaign": campaign, "evaluators": evaluators(campaign)}
        for campaign in Campaign.objects.select_related("rubric")
    ]
    return render(request, "annotation/llm/index.html", {"rows": rows})


@coordinator_required
@require_http_methods(["GET", "POST"])
def llm_campaign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Start an LLM evaluator on one campaign; see its earlier runs, their progress and cost."""
    campaign = get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)
    form = ScoringForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        job = create_scoring_job(
            campaign,
            form.llm_settings(form.cleaned_data),
            label=form.cleaned_data.get("label", ""),
            user=request.user,
        )
        jobs.start(job)
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
