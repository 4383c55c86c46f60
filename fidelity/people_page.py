"""The study page's people part: the form that sends prompts, and each task's campaign."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.urls import reverse
from django.utils.translation import gettext_lazy

from annotation import progress
from fidelity import people
from fidelity.models import Study


class SendForm(forms.Form):
    people = forms.IntegerField(
        label=gettext_lazy("People per prompt"),
        min_value=1,
        max_value=20,
        initial=people.DEFAULT_PEOPLE_PER_PROMPT,
        help_text=gettext_lazy(
            "Each prompt is answered by exactly this many annotators; a task's campaign keeps "
            "the number it was first sent with."
        ),
    )


@dataclass(frozen=True)
class CampaignRow:
    task: str
    name: str
    dashboard: str
    bar: progress.Bar


def people_context(study: Study) -> dict[str, Any]:
    """The study page's people part: each task's campaign with its progress."""
    rows = []
    for link in study.people_campaigns.select_related("campaign"):
        campaign = link.campaign
        rows.append(
            CampaignRow(
                link.get_task_display(),
                campaign.name,
                reverse("annotation:dashboard", args=[campaign.pk]),
                progress.campaign_bar(campaign, progress.campaign_figures(campaign)),
            )
        )
    return {"people_campaigns": rows, "send_form": SendForm()}
