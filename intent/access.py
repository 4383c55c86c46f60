"""Who may see what of a track: coordinators everything, a participant their own team's work.

Participants never see gold labels: no page or file shown to them carries them, only scores.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from evalsite import roles
from intent.models import Submission, Team, Track


def team_of(user: Any, track: Track) -> Team | None:
    if not user.is_authenticated:
        return None
    return track.teams.filter(members=user).first()


def visible_track(user: Any, track_id: int) -> tuple[Track, Team | None]:
    """The track and the user's team in it; 403 for anyone neither coordinator nor member."""
    track = get_object_or_404(Track, pk=track_id)
    team = team_of(user, track)
    if team is None and not roles.has_role(user, roles.COORDINATORS):
        raise PermissionDenied
    return track, team


def visible_submission(user: Any, submission_id: int) -> Submission:
    submission = get_object_or_404(
        Submission.objects.select_related("team__track"), pk=submission_id
    )
    if roles.has_role(user, roles.COORDINATORS):
        return submission
    if not submission.team.members.filter(pk=user.pk).exists():
        raise PermissionDenied
    return submission


def own_team(user: Any, track_id: int) -> Team:
    """The user's team in the track; 403 when they have none."""
    track = get_object_or_404(Track, pk=track_id)
    team = team_of(user, track)
    if team is None:
        raise PermissionDenied
    return team
