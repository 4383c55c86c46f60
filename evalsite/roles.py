"""The four roles of EvalSite and the checks that guard every view and socket.

Roles are Django groups (created by a data migration). Staff and superusers
count as coordinators. One person may hold several roles.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

JUDGES = "judges"
ANNOTATORS = "annotators"
COORDINATORS = "coordinators"
PARTICIPANTS = "participants"
ROLES = (JUDGES, ANNOTATORS, COORDINATORS, PARTICIPANTS)

View = TypeVar("View", bound=Callable[..., HttpResponse])


def roles_of(user: Any) -> frozenset[str]:
    """The roles a user holds; cached on the user object for the request."""
    if user is None or not user.is_authenticated or not user.is_active:
        return frozenset()
    cached: frozenset[str] | None = getattr(user, "_evalsite_roles", None)
    if cached is not None:
        return cached
    names = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
    if user.is_staff or user.is_superuser:
        names.add(COORDINATORS)
    roles = frozenset(names)
    user._evalsite_roles = roles
    return roles


def has_role(user: Any, *roles: str) -> bool:
    """True when the user holds at least one of ``roles``."""
    return bool(roles_of(user) & set(roles))


def role_required(*roles: str) -> Callable[[View], View]:
    """Guard a view: anonymous users go to the login page, others need one of ``roles``."""
    unknown = set(roles) - set(ROLES)
    if unknown:
        raise ValueError(f"unknown roles: {sorted(unknown)}")

    def decorator(view: View) -> View:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not has_role(request.user, *roles):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorator


judge_required = role_required(JUDGES)
annotator_required = role_required(ANNOTATORS)
coordinator_required = role_required(COORDINATORS)
participant_required = role_required(PARTICIPANTS)


def roles_context(request: HttpRequest) -> dict[str, Any]:
    roles = roles_of(getattr(request, "user", None))
    return {
        "user_roles": roles,
        "is_judge": JUDGES in roles,
        "is_annotator": ANNOTATORS in roles,
        "is_coordinator": COORDINATORS in roles,
        "is_participant": PARTICIPANTS in roles,
    }
