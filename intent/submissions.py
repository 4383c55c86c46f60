"""File submissions: checked against the test split, limited per team and day, then scored.

A submission is taken only while its track is open and its team has submissions left today.
Both are checked with the track's row locked (`submission_slot`), in the transaction that
stores the submission, so that concurrent submits cannot overrun the quota and nothing is
taken once the coordinator has closed the track.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, time
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from evalsite import jobs
from evalsite.models import Job
from intent import evaluation
from intent.alignment import align
from intent.files import LabelledUtterance, read_predictions
from intent.models import Submission, Team, Track, Utterance


class SubmissionRefused(Exception):
    """The track takes no submission from this team now; the message says why."""


class QuotaExceeded(SubmissionRefused):
    """The team has used its submissions for today."""

    def __init__(self, quota: int) -> None:
        super().__init__(
            _("Your team has used its %(quota)d submissions for today.") % {"quota": quota}
        )


class TrackClosed(SubmissionRefused):
    """The coordinator has closed the track: its final leaderboard is fixed."""

    def __init__(self) -> None:
        super().__init__(_("The track is closed and takes no more submissions."))


def settle_stopped_runs(team: Team) -> None:
    """Mark failed the team's endpoint runs whose job has stopped for good: failed, or
    interrupted as often as workers restart a job (`evalsite.jobs.MAX_ATTEMPTS`), as when a
    worker is killed each time it runs. A run resumed by hand from its job page goes on, and
    is marked running again."""
    running = team.submissions.filter(status=Submission.Status.RUNNING)
    stopped = Q(job__status=Job.Status.FAILED) | Q(
        job__status=Job.Status.INTERRUPTED, job__attempts__gte=jobs.MAX_ATTEMPTS
    )
    running.filter(stopped).update(status=Submission.Status.FAILED)


def used_today(team: Team) -> int:
    """Submissions of the team today; a failed endpoint run (one that stopped before it could
    be scored) is not counted."""
    settle_stopped_runs(team)
    midnight = timezone.make_aware(datetime.combine(timezone.localdate(), time.min))
    today = team.submissions.filter(created_at__gte=midnight)
    return today.exclude(status=Submission.Status.FAILED).count()


def quota_left(team: Team) -> int:
    return max(0, team.track.daily_quota - used_today(team))


@contextmanager
def submission_slot(team: Team) -> Iterator[Track]:
    """A transaction holding the track's row, entered only while a submission may be taken.

    Raises `TrackClosed` or `QuotaExceeded`. The lock (an IMMEDIATE transaction on SQLite)
    makes the check and the insert one step, and makes closing the track wait for it.
    """
    with transaction.atomic():
        track = Track.objects.select_for_update().get(pk=team.track_id)
        if track.phase != Track.Phase.OPEN:
            raise TrackClosed
        if track.daily_quota - used_today(team) < 1:
            raise QuotaExceeded(track.daily_quota)
        yield track


def test_utterances(team: Team) -> list[LabelledUtterance]:
    rows = team.track.utterances.filter(split=Utterance.Split.TEST).order_by("position")
    return [LabelledUtterance(u.uid, u.query, u.label, u.position) for u in rows]


def record_scores(submission: Submission) -> None:
    track = submission.team.track
    for part, field in (
        (Utterance.Part.PUBLIC, "public_f"),
        (Utterance.Part.PRIVATE, "private_f"),
    ):
        gold = evaluation.gold_part(track, part)
        setattr(submission, field, evaluation.official_f(gold, submission.predictions))


def submit_file(team: Team, user: Any, text: str, filename: str) -> Submission:
    """Check ``text`` and store it as a scored submission.

    `IntentFileError` names the file's problems; `SubmissionRefused` says why the track takes
    no submission now.
    """
    if team.track.phase != Track.Phase.OPEN:
        raise TrackClosed
    gold = test_utterances(team)
    predictions = read_predictions(text, filename)
    labels = team.track.label_tuple
    align(gold, labels, predictions, filename)
    submission = Submission(
        team=team,
        submitted_by=user,
        filename=filename[:255],
        predictions={p.id: p.label for p in predictions},
    )
    record_scores(submission)
    with submission_slot(team):
        submission.save()
    return submission
