"""The fidelity studies on a coordinator's home page."""

from __future__ import annotations

from typing import Any

from evalsite import roles
from evalsite.home import HomePart, register
from fidelity.models import Study


def coordinator_part(user: Any) -> HomePart:
    return HomePart("fidelity/_home_coordinator.html", {"studies": list(Study.objects.all()[:10])})


def register_home_parts() -> None:
    register(roles.COORDINATORS, coordinator_part)
