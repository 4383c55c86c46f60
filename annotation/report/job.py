"""The report job kind (``annotation.report``): computes a campaign's report in the background."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from annotation.models import Campaign
from annotation.report.cache import REPORT_KIND, RESAMPLES, data_fingerprint
from evalsite.agreement.common import DEFAULT_SEED
from evalsite.job_descriptions import JobDescription, JobLink, seconds
from evalsite.jobs import JobContext, JobError, job_kind
from evalsite.models import Job


def describe_report(job: Job) -> JobDescription:
    """The report job in words, with a link to the report it computed."""
    name = _("Agreement report")
    campaign = Campaign.objects.filter(pk=job.params.get("campaign")).first()
    if job.status != Job.Status.DONE or campaign is None:
        return JobDescription(name, counted=False)
    sentence = _("The agreement report of campaign %(campaign)s was computed in %(time)s.") % {
        "campaign": campaign.name,
        "time": seconds(job),
    }
    link = JobLink(_("Open the report"), reverse("annotation_report:page", args=[campaign.pk]))
    return JobDescription(name, sentence, links=(link,), counted=False)


@job_kind(REPORT_KIND, describe=describe_report)
def report_job(context: JobContext) -> dict[str, Any]:
    """params: campaign (id), fingerprint, resamples, seed."""
    campaign = (
        Campaign.objects.select_related("rubric").filter(pk=context.params["campaign"]).first()
    )
    if campaign is None:
        raise JobError("The campaign no longer exists.")
    # Taken again just before reading: the report then describes exactly the data it read, or
    # at worst looks stale when an answer arrives in between.
    fingerprint = data_fingerprint(campaign)
    if fingerprint != context.job.params.get("fingerprint"):
        context.job.params = {**context.job.params, "fingerprint": fingerprint}
        context.job.save(update_fields=["params"])

    def report(done: int, total: int, message: str) -> None:
        # Steps are few and each takes a while, so every one is worth showing.
        context.progress(done, total, message, force=True)

    # Imported here: every process registers this job kind at start-up, and only a worker that
    # computes a report needs pandas and scipy.
    from annotation.report.compute import compute_report

    return compute_report(
        campaign,
        resamples=int(context.params.get("resamples", RESAMPLES)),
        seed=int(context.params.get("seed", DEFAULT_SEED)),
        progress=report,
    )
