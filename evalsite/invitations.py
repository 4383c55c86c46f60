"""Invitation links: who may sign up, with which role, into which campaign, how often, until when.

A coordinator makes a link for a role and, optionally, a campaign. Anyone who
opens it before it expires, while uses are left and unless it was revoked,
signs up and lands in the role's group and the campaign's team. The apps
register the campaigns a link can name (:func:`register_team`) from their
``AppConfig.ready()``; this module names no app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from evalsite.models import Invitation

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class Team:
    """Campaigns of one app that an invitation can name, and how a newcomer joins one."""

    key: str
    role: str
    label: StrOrPromise
    choices: Callable[[], list[tuple[int, str]]]
    join: Callable[[Any, int], None]
    release: Callable[[Any], None]
    """Give back what a deactivated person holds in these campaigns, for others to take."""


_TEAMS: dict[str, Team] = {}


def registered_teams() -> list[Team]:
    return list(_TEAMS.values())


def register_team(team: Team) -> None:
    _TEAMS[team.key] = team


def teams_for(role: str) -> list[Team]:
    """The registered campaigns people of ``role`` can join."""
    return [team for team in _TEAMS.values() if team.role == role]


def team_choices() -> list[tuple[str, str]]:
    """Every campaign an invitation may name, as ('app:id', 'kind: name')."""
    return [
        (f"{team.key}:{pk}", f"{team.label}: {name}")
        for team in _TEAMS.values()
        for pk, name in team.choices()
    ]


def team_of(value: str) -> tuple[Team, int] | None:
    """The registered team and campaign id named by 'app:id', or None."""
    key, _colon, pk = value.partition(":")
    team = _TEAMS.get(key)
    return (team, int(pk)) if team is not None and pk.isdigit() else None


class InvitationRefused(Exception):
    """The invitation cannot be used; the message says why, for the person holding the link."""

    def __init__(self, message: StrOrPromise) -> None:
        super().__init__(str(message))
        self.message = message


def refusal(invitation: Invitation) -> StrOrPromise | None:
    """Why the invitation cannot be used now, or None when it can."""
    if invitation.revoked_at is not None:
        return _("This invitation was withdrawn by the coordinator who sent it.")
    if invitation.expires_at <= timezone.now():
        return _("This invitation has expired.")
    if invitation.uses >= invitation.max_uses:
        return _("This invitation has already been used as many times as it allows.")
    return None


def accept(invitation_id: int, create_user: Callable[[], Any]) -> Any:
    """Create the newcomer with ``create_user()``, give them the role and the campaign.

    The invitation is locked while it is used, so its last use goes to one person only;
    raises InvitationRefused, creating no one, when it cannot be used.
    """
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=invitation_id)
        reason = refusal(invitation)
        if reason is not None:
            raise InvitationRefused(reason)
        user = create_user()
        user.groups.add(Group.objects.get_or_create(name=invitation.role)[0])
        named = team_of(invitation.team) if invitation.team else None
        if named is not None:
            team, campaign_id = named
            team.join(user, campaign_id)
        invitation.uses += 1
        invitation.save(update_fields=["uses"])
    return user


def revoke(invitation: Invitation) -> None:
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
