from __future__ import annotations

import logging
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRefresh

from evalsite import jobs, roles
from evalsite.home import home_sections
from evalsite.http import HtmxHttpRequest
from evalsite.models import Job

logger = logging.getLogger(__name__)


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"sections": home_sections(request.user)})


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, str] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        checks["database"] = "ok"
    except Exception as exc:
        logger.warning("health check: database unavailable", exc_info=True)
        checks["database"] = f"error: {exc.__class__.__name__}"
    try:
        layer = get_channel_layer()
        if layer is None:
            raise RuntimeError("no channel layer configured")
        probe = f"healthz.{uuid.uuid4().hex}"
        async_to_sync(layer.send)(probe, {"type": "healthz"})
        checks["channel_layer"] = "ok"
    except Exception as exc:
        logger.warning("health check: channel layer unavailable", exc_info=True)
        checks["channel_layer"] = f"error: {exc.__class__.__name__}"
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "error", "checks": checks}, status=200 if healthy else 503
    )


def _visible_job(request: HttpRequest, job_id: int) -> Job:
    job = get_object_or_404(Job, pk=job_id)
    if job.created_by_id != request.user.pk and not roles.has_role(
        request.user, roles.COORDINATORS
    ):
        raise PermissionDenied
    return job


@roles.coordinator_required
def job_list(request: HttpRequest) -> HttpResponse:
    jobs.reap_interrupted()
    # Each job described once: its description may read the job's result and what it names.
    rows = [(job, job.description) for job in Job.objects.all()[:100]]
    return render(request, "jobs/list.html", {"rows": rows})


@login_required
def job_detail(request: HtmxHttpRequest, job_id: int) -> HttpResponse:
    job = _visible_job(request, job_id)
    if job.status == Job.Status.RUNNING:
        jobs.reap_interrupted()
        job.refresh_from_db()
    template = "jobs/_progress.html" if request.htmx else "jobs/detail.html"
    return render(request, template, {"job": job, "socket": jobs.pushes_reach_here(job)})


@login_required
@require_POST
def job_resume(request: HtmxHttpRequest, job_id: int) -> HttpResponse:
    job = _visible_job(request, job_id)
    if not job.can_resume:
        return render(
            request,
            "jobs/detail.html",
            {
                "job": job,
                "socket": False,
                "error": _("This job cannot be resumed: it finished, or what it read is gone."),
            },
            status=409,
        )
    jobs.resume(job)
    if request.htmx:
        return HttpResponseClientRefresh()
    return redirect("job_detail", job_id=job.pk)
