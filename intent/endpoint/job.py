"""A team's endpoint run as a resumable background job with progress.

The job sends the whole test split, batch after batch, and stores each batch's answers in the
submission as it goes (``{id: label}``, ``null`` for no valid answer) with the number of the
next batch in its checkpoint; a resumed run continues from there with the same batches (the
plan is seeded by the submission). When the last batch is in, the submission is scored.

Every request goes through `PublicAddressTransport`: the host is resolved and each of its
addresses checked when the batch is sent (`evalsite.endpoint_addresses`). Whatever stops the
run (a refused URL, an error of EvalSite's own) marks the submission failed, so that it never
stays "running"; a failed submission does not count against the team's daily quota. The team
reads that the run stopped, in its language; the log keeps the detail for the coordinators.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from evalsite import jobs
from evalsite.agreement.phrases import Phrase
from evalsite.endpoint_addresses import PublicAddressTransport, check_written_host
from evalsite.endpoint_url import EndpointURLError, endpoint_url
from evalsite.job_descriptions import JobDescription, JobLink, count, seconds
from evalsite.jobs import JobContext, JobError
from evalsite.models import Job
from intent.endpoint.protocol import DEFAULT_BATCH_SIZE, DEFAULT_TIMEOUT, Item, plan_batches, send
from intent.models import Submission, Team, Utterance
from intent.submissions import record_scores, submission_slot

ENDPOINT_JOB = "intent_endpoint"
logger = logging.getLogger(__name__)


def batches_of(submission: Submission, batch_size: int) -> list[list[Item]]:
    track = submission.team.track
    utterances = track.utterances.order_by("position")
    tests = list(utterances.filter(split=Utterance.Split.TEST).values_list("uid", "query"))
    health = list(
        utterances.exclude(split=Utterance.Split.TEST).values_list("uid", "query", "label")
    )
    return plan_batches(tests, health, batch_size=batch_size, seed=submission.pk)


def describe_endpoint_run(job: Job) -> JobDescription:
    """A team's endpoint run in words, with a link to the submission it scored."""
    name = _("Endpoint run")
    submission_id = job.params.get("submission")
    links = (
        (JobLink(_("Open the submission"), reverse("intent:submission", args=[submission_id])),)
        if Submission.objects.filter(pk=submission_id).exists()
        else ()
    )
    if job.status != Job.Status.DONE:
        return JobDescription(name, links=links, counted=False)
    batches, failed = count(job.result.get("batches")), count(job.result.get("failed_batches"))
    sentence = ngettext(
        "%(count)s batch sent to the endpoint in %(time)s; %(failed)s failed.",
        "%(count)s batches sent to the endpoint in %(time)s; %(failed)s failed.",
        batches,
    ) % {"count": batches, "failed": failed, "time": seconds(job)}
    return JobDescription(name, sentence, links=links, counted=False)


@jobs.job_kind(ENDPOINT_JOB, describe=describe_endpoint_run)
def run_endpoint(context: JobContext) -> dict[str, Any]:
    """params: submission (id), url, batch_size, timeout (seconds per batch)."""
    params = context.params
    submission = (
        Submission.objects.select_related("team__track").filter(pk=params["submission"]).first()
    )
    if submission is None:
        raise JobError(f"there is no submission {params['submission']}")
    Submission.objects.filter(pk=submission.pk).update(status=Submission.Status.RUNNING)
    try:
        return _send_batches(context, submission)
    except JobError:
        _mark_failed(submission)
        raise
    except Exception:
        # EvalSite's own failure, whatever it is: the detail is for the log, not for the team.
        logger.exception("endpoint run of submission %s failed", submission.pk)
        _mark_failed(submission)
        raise JobError(
            Phrase(gettext_noop("the endpoint run stopped on an error of this site's own"))
        ) from None


def endpoint_transport() -> httpx.BaseTransport:
    """The transport of every request to a team's endpoint: allowed addresses only."""
    return PublicAddressTransport()


def _mark_failed(submission: Submission) -> None:
    Submission.objects.filter(pk=submission.pk).update(status=Submission.Status.FAILED)


def _send_batches(context: JobContext, submission: Submission) -> dict[str, Any]:
    params = context.params
    try:
        url = endpoint_url(params["url"])
        check_written_host(url)
    except EndpointURLError as error:
        raise JobError(
            Phrase(gettext_noop("the endpoint URL cannot be used: %(reason)s"), reason=str(error))
        ) from None
    batches = batches_of(submission, int(params["batch_size"]))
    labels = submission.team.track.label_tuple
    start = int(context.checkpoint.get("next_batch", 0))
    health = dict(context.checkpoint.get("health", {"asked": 0, "right": 0}))
    context.progress(start, len(batches), force=True)
    with httpx.Client(transport=endpoint_transport()) as client:
        for number in range(start, len(batches)):
            batch = batches[number]
            result = send(client, url, batch, labels, float(params["timeout"]))
            for item in batch:
                answer = result.answers.get(item.id)
                if item.health_label is None:
                    submission.predictions[item.id] = answer
                else:
                    health["asked"] += 1
                    health["right"] += int(answer == item.health_label)
            if result.failure is not None:
                submission.failed_batches.append(
                    {
                        "batch": number + 1,
                        "items": len(batch),
                        "cause": result.failure.cause,
                        "detail": result.failure.detail,
                    }
                )
            submission.save(update_fields=["predictions", "failed_batches"])
            context.save_checkpoint(done=number + 1, next_batch=number + 1, health=health)
    record_scores(submission)
    submission.status = Submission.Status.SCORED
    submission.save(update_fields=["status", "public_f", "private_f"])
    return {
        "batches": len(batches),
        "failed_batches": len(submission.failed_batches),
        "health_checks": health,
        "public_f": submission.public_f,
    }


def start_endpoint_run(
    team: Team,
    user: Any,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[Submission, Job]:
    """A running submission and its job, not yet started.

    `SubmissionRefused` when the track is closed or the team has no submission left today.
    """
    with submission_slot(team):
        submission = Submission.objects.create(
            team=team,
            submitted_by=user,
            source=Submission.Source.ENDPOINT,
            filename=team.endpoint_url[:255],
            status=Submission.Status.RUNNING,
        )
    job = jobs.create(
        ENDPOINT_JOB,
        {
            "submission": submission.pk,
            "url": team.endpoint_url,
            "batch_size": batch_size,
            "timeout": timeout,
        },
        user=user,
    )
    submission.job = job
    submission.save(update_fields=["job"])
    return submission, job
