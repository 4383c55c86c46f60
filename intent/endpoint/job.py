"""A team's endpoint run as a resumable background job with progress.

The job sends the whole test split, batch after batch, and stores each batch's answers in the
submission as it goes (``{id: label}``, ``null`` for no valid answer) with the number of the
next batch in its checkpoint; a resumed run continues from there with the same batches (the
plan is seeded by the submission). When the last batch is in, the submission is scored.
"""

from __future__ import annotations

from typing import Any

import httpx
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from evalsite import jobs
from evalsite.endpoint_url import EndpointURLError, endpoint_url
from evalsite.job_descriptions import JobDescription, JobLink, count, seconds
from evalsite.jobs import JobContext, JobError
from evalsite.models import Job
from intent.endpoint.protocol import DEFAULT_BATCH_SIZE, DEFAULT_TIMEOUT, Item, plan_batches, send
from intent.models import Submission, Team, Utterance
from intent.submissions import record_scores, submission_slot

ENDPOINT_JOB = "intent_endpoint"


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
    try:
        url = endpoint_url(params["url"])
    except EndpointURLError as error:
        submission.status = Submission.Status.FAILED
        submission.save(update_fields=["status"])
        raise JobError(f"the endpoint URL cannot be used: {error}") from None
    batches = batches_of(submission, int(params["batch_size"]))
    labels = submission.team.track.label_tuple
    start = int(context.checkpoint.get("next_batch", 0))
    health = dict(context.checkpoint.get("health", {"asked": 0, "right": 0}))
    context.progress(start, len(batches), force=True)
    with httpx.Client() as client:
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
                    {"batch": number + 1, "items": len(batch), "reason": result.failure}
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
