"""What the home page shows each person: the work waiting for each of their roles.

Each app contributes the section of the role it serves; a person with several
roles sees several sections.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalsite import roles


@dataclass
class HomeSection:
    role: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)


def coordinator_section(user: Any) -> HomeSection:
    from annotation.home import coordinator_campaigns as annotation_campaigns
    from evalsite.models import Job
    from liveeval.home import coordinator_campaigns as live_campaigns

    context: dict[str, Any] = {"recent_jobs": list(Job.objects.filter(created_by=user)[:5])}
    context.update(live_campaigns(user))
    context.update(annotation_campaigns(user))
    return HomeSection(roles.COORDINATORS, "home/_coordinator.html", context)


def home_sections(user: Any) -> list[HomeSection]:
    from annotation.home import annotator_section
    from liveeval.home import judge_section

    providers = {
        roles.JUDGES: judge_section,
        roles.ANNOTATORS: annotator_section,
        roles.COORDINATORS: coordinator_section,
    }
    held = roles.roles_of(user)
    return [providers[role](user) for role in roles.ROLES if role in held]
