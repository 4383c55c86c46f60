"""The report's cache: the data fingerprint, the state of a campaign's report, and starting it.

A report is computed by a background job (kind ``annotation.report``) and kept as that job's
``result``; nothing else stores it. The job's params hold a fingerprint of the campaign's data
(counts, latest update times and sums of transcripts, submitted answers and LLM scores) and of
the settings the report is computed with (the alt-test's ε), so a report whose fingerprint no
longer matches is stale and can be recomputed, with its progress shown on the page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, QuerySet, Sum
from django.utils import timezone

from annotation.models import Assignment, Campaign, LLMScore, Response
from evalsite import jobs
from evalsite.agreement.common import DEFAULT_RESAMPLES, DEFAULT_SEED
from evalsite.models import Job

# Raised whenever the stored shape of a report changes, so older results count as stale.
REPORT_VERSION = 4

REPORT_KIND = "annotation.report"


# What the page's "compute" button uses; tests lower it for speed.
RESAMPLES = DEFAULT_RESAMPLES


def _stamp(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def _rounded(value: Any) -> float | None:
    # Floating sums may differ in the last digits between two runs of the same query.
    return None if value is None else round(float(value), 6)


def data_fingerprint(campaign: Campaign) -> dict[str, Any]:
    """What the report depends on: changes whenever a transcript, a submitted answer or an
    LLM score of ``campaign`` is added, revised, re-imported or removed, and whenever the
    campaign's alt-test ε changes."""
    transcripts = campaign.transcripts.aggregate(count=Count("pk"), latest=Max("imported_at"))
    answers = Response.objects.filter(
        assignment__campaign=campaign, assignment__status=Assignment.Status.SUBMITTED
    ).aggregate(count=Count("pk"), latest=Max("updated_at"), total=Sum("value"))
    scores = LLMScore.objects.filter(transcript__campaign=campaign).aggregate(
        count=Count("pk"), latest=Max("imported_at"), total=Sum("score")
    )
    return {
        "version": REPORT_VERSION,
        "transcripts": [transcripts["count"], _stamp(transcripts["latest"])],
        "responses": [answers["count"], _stamp(answers["latest"]), _rounded(answers["total"])],
        "llm_scores": [scores["count"], _stamp(scores["latest"]), _rounded(scores["total"])],
        "alt_test_epsilon": campaign.alt_test_epsilon,
    }


def _report_jobs(campaign: Campaign) -> QuerySet[Job]:
    return Job.objects.filter(kind=REPORT_KIND, params__campaign=campaign.pk)


@dataclass(frozen=True)
class ReportState:
    """The latest computed report of a campaign, whether it is current, and any job at work."""

    report: Job | None
    fresh: bool
    running: Job | None
    failed: Job | None

    @property
    def result(self) -> dict[str, Any] | None:
        return None if self.report is None else self.report.result


def _under_way(campaign: Campaign) -> Job | None:
    """The computation at work for ``campaign``: a running job whose worker is alive, or a job
    created moments ago. A pending job that never started (its process died first) is ignored."""
    job = _report_jobs(campaign).filter(status__in=[Job.Status.PENDING, Job.Status.RUNNING]).first()
    if job is None:
        return None
    if job.status == Job.Status.RUNNING:
        jobs.reap_interrupted()
        job.refresh_from_db()
        return None if job.is_finished else job
    return job if job.created_at >= timezone.now() - jobs.STALE_AFTER else None


def report_state(campaign: Campaign) -> ReportState:
    recent = _report_jobs(campaign)
    done = recent.filter(status=Job.Status.DONE).first()
    latest = recent.first()
    failed = latest if latest is not None and latest.can_resume else None
    fresh = done is not None and done.params.get("fingerprint") == data_fingerprint(campaign)
    return ReportState(report=done, fresh=fresh, running=_under_way(campaign), failed=failed)


def start_report(campaign: Campaign, user: Any = None, *, resamples: int | None = None) -> Job:
    """Start computing the report in the background, unless that computation is under way."""
    fingerprint = data_fingerprint(campaign)
    under_way = _under_way(campaign)
    if under_way is not None and under_way.params.get("fingerprint") == fingerprint:
        return under_way
    job = jobs.create(REPORT_KIND, _job_params(campaign, fingerprint, resamples), user=user)
    jobs.start(job)
    return job


def _job_params(
    campaign: Campaign, fingerprint: dict[str, Any], resamples: int | None
) -> dict[str, Any]:
    return {
        "campaign": campaign.pk,
        "fingerprint": fingerprint,
        "resamples": RESAMPLES if resamples is None else resamples,
        "seed": DEFAULT_SEED,
    }


def run_report(
    campaign: Campaign,
    *,
    resamples: int | None = None,
    on_progress: Callable[[Job], None] | None = None,
) -> Job:
    """Compute the report in this process (for commands); returns the finished job."""
    job = jobs.create(REPORT_KIND, _job_params(campaign, data_fingerprint(campaign), resamples))
    return jobs.run(job, on_progress=on_progress)
