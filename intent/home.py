"""The intent tracks on the home page: a participant's teams, a coordinator's tracks."""

from __future__ import annotations

from typing import Any

from evalsite import roles
from evalsite.home import HomePart, register
from intent.models import Team, Track


def participant_part(user: Any) -> HomePart:
    teams = Team.objects.filter(members=user).select_related("track")
    return HomePart("intent/_home_participant.html", {"teams": list(teams)})


def coordinator_part(user: Any) -> HomePart:
    return HomePart("intent/_home_coordinator.html", {"tracks": list(Track.objects.all()[:20])})


def register_home_parts() -> None:
    register(roles.PARTICIPANTS, participant_part)
    register(roles.COORDINATORS, coordinator_part)
