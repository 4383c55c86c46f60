"""The coordinator's agreement report page, its computation, and its exports."""

from __future__ import annotations

import io
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRefresh

from annotation.models import Campaign
from annotation.report import cache
from annotation.report import workbook as exports
from annotation.report.page import report_context
from evalsite import jobs
from evalsite.downloads import csv_download, file_stem, xlsx_download
from evalsite.http import HtmxHttpRequest
from evalsite.models import Job
from evalsite.roles import coordinator_required


def _campaign(campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign.objects.select_related("rubric"), pk=campaign_id)


@coordinator_required
def report_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    state = cache.report_state(campaign)
    context: dict[str, Any] = {
        "campaign": campaign,
        "state": state,
        "tables": exports.report_tables(),
        "socket": state.running is not None and jobs.pushes_reach_here(state.running),
    }
    if state.result is not None:
        context.update(report_context(campaign, state.result, request.GET.get("evaluator")))
    return render(request, "annotation/report/page.html", context)


@coordinator_required
@require_POST
def compute(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    cache.start_report(campaign, request.user)
    return redirect("annotation_report:page", campaign.pk)


@coordinator_required
def progress(request: HtmxHttpRequest, campaign_id: int, job_id: int) -> HttpResponse:
    """The computing job's bar, polled by the page; when the job ends the page reloads."""
    job = get_object_or_404(Job, pk=job_id, kind=cache.REPORT_KIND, params__campaign=campaign_id)
    if job.is_finished:
        if request.htmx:
            return HttpResponseClientRefresh()
        return redirect("annotation_report:page", campaign_id)
    return render(request, "jobs/_bar.html", {"event": job.as_event()})


def _fresh_result(request: HttpRequest, campaign: Campaign) -> dict[str, Any] | None:
    state = cache.report_state(campaign)
    if state.result is None or not state.fresh:
        messages.warning(
            request,
            _("The report is out of date or not computed yet; compute it, then export it."),
        )
        return None
    return state.result


def _filename(campaign: Campaign) -> str:
    return f"{file_stem(campaign.name, f'campaign-{campaign.pk}')}-agreement"


@coordinator_required
def workbook(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    result = _fresh_result(request, campaign)
    if result is None:
        return redirect("annotation_report:page", campaign.pk)
    buffer = io.BytesIO()
    exports.write_report_workbook(buffer, campaign, result, request.user.get_username())
    return xlsx_download(buffer.getvalue(), f"{_filename(campaign)}.xlsx")


@coordinator_required
def table_csv(request: HttpRequest, campaign_id: int, table: str) -> HttpResponse:
    campaign = _campaign(campaign_id)
    if table not in exports.table_slugs():
        raise Http404(f"the report has no table {table!r}")
    result = _fresh_result(request, campaign)
    if result is None:
        return redirect("annotation_report:page", campaign.pk)
    return csv_download(
        exports.csv_bytes(campaign, result, table), f"{_filename(campaign)}-{table}.csv"
    )
