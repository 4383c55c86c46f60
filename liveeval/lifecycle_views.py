"""The coordinator's pages that copy, archive and restore a live campaign, and set the
dialogue language of each task card of a bilingual one."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from evalsite import archive
from evalsite.campaign_forms import CloneForm
from evalsite.roles import coordinator_required
from liveeval import campaign_lifecycle, chat
from liveeval.forms import TaskLanguagesForm
from liveeval.models import Campaign


@coordinator_required
@require_http_methods(["GET", "POST"])
def campaign_clone(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """A new draft with this campaign's design and judges, without its conversations."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    form = CloneForm(request.POST or None, model=Campaign, original=campaign.name)
    if request.method == "POST" and form.is_valid():
        copy = campaign_lifecycle.clone(campaign, form.cleaned_data["name"], request.user)
        messages.success(request, _("Copy created as a draft, without any conversation."))
        return redirect("liveeval:campaign_detail", campaign_id=copy.pk)
    context = {"form": form, "campaign": campaign, "kind": "live"}
    return render(request, "campaign_clone.html", context, status=400 if form.is_bound else 200)


@coordinator_required
@require_POST
def campaign_archive(request: HttpRequest, campaign_id: int, archived: bool) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    said = (
        _("Campaign archived: judges no longer see it.")
        if archived
        else _("Campaign restored: judges see it again.")
    )
    archive.set_archived(request, campaign, archived, said)
    if archived:
        chat.close_archived_pages(campaign)
    return redirect("liveeval:campaign_detail", campaign_id=campaign.pk)


@coordinator_required
@require_POST
def task_languages(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Store the dialogue language of each task card of a bilingual draft campaign."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    form = TaskLanguagesForm(request.POST, campaign=campaign)
    if campaign.lang != Campaign.Lang.BILINGUAL:
        messages.error(request, _("Only a bilingual campaign has a language per task card."))
    elif not form.is_valid():
        messages.error(request, _("Choose Chinese or English for each task card."))
    else:
        try:
            campaign_lifecycle.set_task_languages(campaign, form.chosen())
            messages.success(request, _("Dialogue languages saved."))
        except campaign_lifecycle.CampaignFrozen:
            messages.error(request, _("The campaign is open: its dialogue languages are fixed."))
    return redirect("liveeval:campaign_detail", campaign_id=campaign.pk)
