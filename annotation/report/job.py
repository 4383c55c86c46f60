"""The report job kind (``annotation.report``): computes a campaign's report in the background."""

from __future__ import annotations

from typing import Any

from annotation.models import Campaign
from annotation.report.cache import REPORT_KIND, RESAMPLES, data_fingerprint
from annotation.report.compute import compute_report
from evalsite.agreement.common import DEFAULT_SEED
from evalsite.jobs import JobContext, JobError, job_kind


@job_kind(REPORT_KIND)
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

    return compute_report(
        campaign,
        resamples=int(context.params.get("resamples", RESAMPLES)),
        seed=int(context.params.get("seed", DEFAULT_SEED)),
        progress=report,
    )
