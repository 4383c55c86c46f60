"""Turning someone's account off: they can no longer log in, and what they held goes to others.

Each app gives back what the person holds in its campaigns (held annotation items,
a judge's pending conversations) through the ``release`` of its registered team.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from evalsite.invitations import registered_teams


class CannotDeactivate(Exception):
    """This account may not be turned off by this person; the message says why."""


def deactivate(user: Any, *, by: Any) -> None:
    if user.pk == by.pk:
        raise CannotDeactivate(_("You cannot deactivate your own account."))
    if user.is_superuser:
        raise CannotDeactivate(_("A superuser's account is managed in the admin."))
    with transaction.atomic():
        user.is_active = False
        user.save(update_fields=["is_active"])
        for team in registered_teams():
            team.release(user)
