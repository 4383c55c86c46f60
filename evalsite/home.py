"""What the home page shows each person: the work waiting for each of their roles.

The page has one section per role the person holds, in the order of ``roles.ROLES``.
A section is made of parts that the apps register from their ``AppConfig.ready()``
with :func:`register`, in the order the apps are installed; this module names no app.
A part is a template and the context it is rendered with, built for the person.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalsite import roles


@dataclass(frozen=True)
class HomePart:
    """One app's part of a role's section: a template and its context."""

    template: str
    context: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HomeSection:
    """Everything shown to one role, part after part."""

    role: str
    parts: list[HomePart]


PartBuilder = Callable[[Any], HomePart]
_PARTS: dict[str, list[PartBuilder]] = {}


def register(role: str, build: PartBuilder) -> None:
    """Add a part to ``role``'s section; ``build(user)`` makes it for each page view.

    Registering the same builder again (a second ``ready()`` in tests) changes nothing.
    """
    if role not in roles.ROLES:
        raise ValueError(f"unknown role {role!r}; roles are {', '.join(roles.ROLES)}")
    builders = _PARTS.setdefault(role, [])
    if build not in builders:
        builders.append(build)


def home_sections(user: Any) -> list[HomeSection]:
    held = roles.roles_of(user)
    return [
        HomeSection(role, [build(user) for build in _PARTS.get(role, [])])
        for role in roles.ROLES
        if role in held
    ]


def coordinator_part(user: Any) -> HomePart:
    """The coordinator section's heading and the link to the background jobs."""
    return HomePart("home/_coordinator.html")
