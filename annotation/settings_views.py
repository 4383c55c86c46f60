"""The coordinator's pages for an annotation campaign's settings: a new campaign, its
settings, its gold items, a copy, archiving and restoring."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from annotation import campaign_lifecycle, gold, queue
from annotation.models import Campaign, Transcript
from annotation.settings_forms import CampaignSettingsForm, GoldForm
from evalsite import archive
from evalsite.campaign_forms import CloneForm
from evalsite.roles import coordinator_required

GOLD_PAGE_SIZE = 50


@coordinator_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: HttpRequest) -> HttpResponse:
    """An empty campaign with a rubric and its settings; its transcripts come by import."""
    form = CampaignSettingsForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = form.save()
        messages.success(request, _("Campaign created. Now import its transcripts."))
        return redirect(reverse("annotation:import_transcripts") + f"?campaign={campaign.pk}")
    context = {"form": form, "campaign": None}
    status = 400 if form.is_bound else 200
    return render(request, "annotation/campaign_settings.html", context, status=status)


@coordinator_required
@require_http_methods(["GET", "POST"])
def campaign_settings(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)
    form = CampaignSettingsForm(request.POST or None, instance=campaign)
    if request.method == "POST" and form.is_valid():
        form.save()
        queue.release_outsiders(campaign)
        messages.success(request, _("Settings saved."))
        return redirect("annotation:settings", campaign.pk)
    context = {
        "form": form,
        "campaign": campaign,
        "lowest_r": campaign_lifecycle.lowest_r(campaign),
    }
    status = 400 if form.is_bound else 200
    return render(request, "annotation/campaign_settings.html", context, status=status)


@coordinator_required
def gold_items(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign's transcripts, gold ones first, each with a link to its expected answers."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    transcripts = campaign.transcripts.order_by("position", "pk").only(
        "pk", "external_id", "system", "gold"
    )
    golden = gold.gold_rows(
        list(transcripts.exclude(gold={})), list(campaign.rubric.dimensions.all()), get_language()
    )
    page = Paginator(transcripts, GOLD_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"campaign": campaign, "golden": golden, "page": page}
    return render(request, "annotation/gold_items.html", context)


@coordinator_required
@require_http_methods(["GET", "POST"])
def gold_item(request: HttpRequest, campaign_id: int, transcript_id: int) -> HttpResponse:
    transcript = get_object_or_404(
        Transcript.objects.select_related("campaign__rubric"),
        pk=transcript_id,
        campaign_id=campaign_id,
    )
    form = GoldForm(request.POST or None, transcript=transcript)
    if request.method == "POST" and form.is_valid():
        gold.set_gold(transcript, form.answers())
        messages.success(request, _("Gold answers saved."))
        return redirect("annotation:gold_items", campaign_id)
    context = {"form": form, "campaign": transcript.campaign, "transcript": transcript}
    context["turns"] = list(enumerate(transcript.turns, start=1))
    return render(
        request, "annotation/gold_item.html", context, status=400 if form.is_bound else 200
    )


@coordinator_required
@require_http_methods(["GET", "POST"])
def campaign_clone(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """A new campaign with this one's settings and team, without its transcripts or answers."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    form = CloneForm(request.POST or None, model=Campaign, original=campaign.name)
    if request.method == "POST" and form.is_valid():
        copy = campaign_lifecycle.clone(campaign, form.cleaned_data["name"])
        messages.success(request, _("Copy created with the same settings, and no transcripts."))
        return redirect("annotation:settings", copy.pk)
    context = {"form": form, "campaign": campaign, "kind": "annotation"}
    return render(request, "campaign_clone.html", context, status=400 if form.is_bound else 200)


@coordinator_required
@require_POST
def campaign_archive(request: HttpRequest, campaign_id: int, archived: bool) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    said = (
        _("Campaign archived: annotators no longer see it.")
        if archived
        else _("Campaign restored: annotators see it again.")
    )
    archive.set_archived(request, campaign, archived, said)
    return redirect("annotation:dashboard", campaign.pk)
