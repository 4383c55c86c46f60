"""What the intent pages show: a track for a coordinator or a team, scores, a leaderboard."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from intent import datasets, evaluation, standings, submissions
from intent.endpoint.protocol import Cause
from intent.figures import confusion_heatmap
from intent.forms import EndpointForm, SplitUploadForm, SubmissionForm, TeamForm
from intent.models import Submission, Team, Track


def track_context(track: Track, team: Team | None, is_coordinator: bool) -> dict[str, Any]:
    context: dict[str, Any] = {
        "track": track,
        "team": team,
        "is_track_coordinator": is_coordinator,
        "counts": datasets.split_counts(track),
        "part": evaluation.leaderboard_part(track),
    }
    if is_coordinator:
        context["upload_form"] = SplitUploadForm()
        context["team_form"] = TeamForm(track=track)
        context["teams"] = track.teams.prefetch_related("members")
    if team is not None:
        context["submission_form"] = SubmissionForm()
        context["endpoint_form"] = EndpointForm(instance=team)
        context["quota_left"] = submissions.quota_left(team)
        context["submissions"] = team.submissions.all()[:50]
    return context


def part_label(part: str) -> str:
    return _("public part") if part == "public" else _("private part")


# Why a batch failed, in words, for coordinators; a team reads NO_USABLE_ANSWER for every cause.
FAILURE_CAUSES = {
    Cause.LATE: gettext_lazy("no complete answer within %(detail)s s"),
    Cause.TOO_LONG: gettext_lazy("the answer is longer than %(detail)s bytes"),
    Cause.NESTED: gettext_lazy("the answer is nested too deeply to read"),
    Cause.NOT_JSON: gettext_lazy("the answer is not JSON"),
    Cause.NO_RESULTS: gettext_lazy("the answer has no resultsList"),
    Cause.HTTP_STATUS: gettext_lazy("HTTP status %(detail)s"),
    Cause.UNREACHABLE: gettext_lazy("the endpoint could not be reached (%(detail)s)"),
    Cause.REFUSED_ADDRESS: gettext_lazy("refused: %(detail)s"),
}
NO_USABLE_ANSWER = gettext_lazy("no usable answer")


def failed_batches(submission: Submission, is_coordinator: bool) -> list[dict[str, Any]]:
    """The failed batches with their reason: the cause for coordinators, the same words for
    every cause for the team, so that the page maps nothing of what the server can reach."""
    shown = []
    for entry in submission.failed_batches:
        reason = str(NO_USABLE_ANSWER)
        if is_coordinator:
            template = FAILURE_CAUSES.get(entry.get("cause", ""))
            detail = str(entry.get("detail", ""))
            # Batches kept before causes were recorded hold their reason in words.
            reason = str(template) % {"detail": detail} if template else entry.get("reason", reason)
        shown.append({"batch": entry.get("batch"), "items": entry.get("items"), "reason": reason})
    return shown


def submission_context(submission: Submission, is_coordinator: bool) -> dict[str, Any]:
    """The scores of one submission; the per-class breakdown for coordinators alone.

    Per-class figures and the confusion matrix of a crafted file (one probe label per
    utterance) reveal gold labels, so a team sees only the figures of the whole part.
    """
    track = submission.team.track
    part = evaluation.leaderboard_part(track)
    scored = evaluation.part_scores(evaluation.gold_part(track, part), submission.predictions)
    context: dict[str, Any] = {
        "submission": submission,
        "track": track,
        "part_label": part_label(part),
        "scored": scored,
        "breakdown": is_coordinator,
        "failed_batches": failed_batches(submission, is_coordinator),
    }
    if scored is not None and is_coordinator:
        context["heatmap"] = confusion_heatmap(scored.scores)
    return context


def leaderboard_context(track: Track) -> dict[str, Any]:
    return {
        "track": track,
        "part_label": part_label(evaluation.leaderboard_part(track)),
        "standings": standings.standings(track),
    }


def scored_for_export(submission: Submission) -> evaluation.PartScores | None:
    track = submission.team.track
    part = evaluation.leaderboard_part(track)
    return evaluation.part_scores(evaluation.gold_part(track, part), submission.predictions)


def test_inputs(track: Track) -> dict[str, dict[str, str]]:
    """The test split's queries keyed by id, in the released format without labels."""
    rows = track.utterances.filter(split="test").order_by("position").values_list("uid", "query")
    return {uid: {"query": query} for uid, query in rows}
