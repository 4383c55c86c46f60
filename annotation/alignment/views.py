"""The alignment pages: versions side by side with the verdict, the adjudication queue, one
item's adjudication, who adjudicates, and the exports.

The comparison and exports are the coordinator's; the queue and the item pages are also open
to the campaign's designated adjudicators, and to nobody else.
"""

from __future__ import annotations

import io

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation.alignment.adjudication import evidence, may_adjudicate, record_adjudication
from annotation.alignment.forms import AdjudicationForm, AdjudicatorsForm
from annotation.alignment.page import adjudication_queue, alignment_summary
from annotation.alignment.sheets import ALIGNMENT_SHEETS, alignment_sheet
from annotation.alignment.stored_split import alignment_of
from annotation.models import Campaign, Dimension, Transcript
from annotation.report.workbook import campaign_about
from evalsite.downloads import csv_download, file_stem, xlsx_download
from evalsite.roles import coordinator_required
from evalsite.spreadsheets import write_csv, write_workbook


def _campaign(campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)


def _adjudicable(request: HttpRequest, campaign_id: int) -> Campaign:
    campaign = _campaign(campaign_id)
    if not may_adjudicate(request.user, campaign):
        raise PermissionDenied
    return campaign


@coordinator_required
def alignment_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Versions side by side, calibration, and "Can this evaluator replace people?"."""
    campaign = _campaign(campaign_id)
    form = AdjudicatorsForm(initial={"adjudicators": alignment_of(campaign).adjudicators.all()})
    context = {
        "campaign": campaign,
        "summary": alignment_summary(campaign),
        "form": form,
        "tables": [(slug, title) for slug, title, _ in ALIGNMENT_SHEETS],
    }
    return render(request, "annotation/alignment/page.html", context)


@coordinator_required
@require_POST
def adjudicators(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    form = AdjudicatorsForm(request.POST)
    if form.is_valid():
        alignment_of(campaign).adjudicators.set(form.cleaned_data["adjudicators"])
    return redirect("annotation_alignment:page", campaign.pk)


@login_required
def queue(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The largest disagreements of one version, per dimension and overall."""
    campaign = _adjudicable(request, campaign_id)
    context = {
        "campaign": campaign,
        "queue": adjudication_queue(campaign, request.GET.get("version")),
    }
    return render(request, "annotation/alignment/queue.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def adjudicate(
    request: HttpRequest, campaign_id: int, transcript_id: int, key: str
) -> HttpResponse:
    """One item on one dimension: the transcript, every score, the LLM's rationale, a decision."""
    campaign = _adjudicable(request, campaign_id)
    transcript = get_object_or_404(Transcript, pk=transcript_id, campaign=campaign)
    dimension = get_object_or_404(Dimension, rubric=campaign.rubric, key=key)
    shown = evidence(transcript, dimension)
    initial = {} if shown.decision is None else {"score": shown.decision.score}
    form = AdjudicationForm(request.POST or None, dimension=dimension, initial=initial)
    if request.method == "POST" and form.is_valid():
        record_adjudication(transcript, dimension, user=request.user, **form.cleaned_data)
        return redirect("annotation_alignment:queue", campaign.pk)
    context = {"campaign": campaign, "evidence": shown, "form": form}
    status = 400 if form.is_bound else 200
    return render(request, "annotation/alignment/adjudicate.html", context, status=status)


@coordinator_required
def table_csv(request: HttpRequest, campaign_id: int, table: str) -> HttpResponse:
    campaign = _campaign(campaign_id)
    try:
        sheet = alignment_sheet(campaign, table)
    except KeyError:
        raise Http404(f"the alignment has no table {table!r}") from None
    buffer = io.StringIO()
    write_csv(buffer, sheet.header, sheet.rows)
    name = file_stem(campaign.name, f"campaign-{campaign.pk}")
    return csv_download(buffer.getvalue(), f"{name}-alignment-{table}.csv")


@coordinator_required
def workbook(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    buffer = io.BytesIO()
    write_workbook(
        buffer,
        [build(campaign) for _, _, build in ALIGNMENT_SHEETS],
        campaign_about(campaign, request.user.get_username()),
    )
    name = file_stem(campaign.name, f"campaign-{campaign.pk}")
    return xlsx_download(buffer.getvalue(), f"{name}-alignment.xlsx")
