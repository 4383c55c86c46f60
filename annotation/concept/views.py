"""The CONCEPT scorecard page of an annotation campaign, and the transcripts behind its numbers.

Both pages are for coordinators. The views look the campaign up and render; what they show is
built by ``annotation.concept.page``.
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from annotation.concept.page import PAGE_SIZE, filtered_transcripts, scorecard_context
from annotation.concept.scorecard import gather_inputs
from annotation.models import Campaign
from evalsite.roles import coordinator_required


@coordinator_required
def scorecard(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The CONCEPT scorecard: every measure per system × dataset, the six abilities per system,
    and the persona breakdowns with their coordination."""
    campaign = get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)
    context = scorecard_context(campaign, gather_inputs(campaign), request.GET.get("source", ""))
    return render(request, "annotation/concept/scorecard.html", context)


@coordinator_required
def transcripts(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign's dialogues filtered by system, dataset, persona and acceptance."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    found, applied = filtered_transcripts(campaign, request.GET)
    page = Paginator(found, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "annotation/concept/transcripts.html",
        {"campaign": campaign, "page": page, "applied": applied, "total": page.paginator.count},
    )
