"""File submissions: checked against the test split, limited per team and day, then scored."""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from intent import evaluation
from intent.alignment import align
from intent.files import LabelledUtterance, read_predictions
from intent.models import Submission, Team, Utterance


class QuotaExceeded(Exception):
    """The team has used its submissions for today."""

    def __init__(self, quota: int) -> None:
        super().__init__(
            _("Your team has used its %(quota)d submissions for today.") % {"quota": quota}
        )


def used_today(team: Team) -> int:
    midnight = timezone.make_aware(datetime.combine(timezone.localdate(), time.min))
    return team.submissions.filter(created_at__gte=midnight).count()


def quota_left(team: Team) -> int:
    return max(0, team.track.daily_quota - used_today(team))


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
    """Check ``text`` and store it as a scored submission; `IntentFileError` names problems."""
    if quota_left(team) < 1:
        raise QuotaExceeded(team.track.daily_quota)
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
    submission.save()
    return submission
