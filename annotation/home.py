from __future__ import annotations

from typing import Any

from evalsite import roles
from evalsite.home import HomeSection


def annotator_section(user: Any) -> HomeSection:
    return HomeSection(roles.ANNOTATORS, "annotation/_home_annotator.html", {"queues": []})


def coordinator_campaigns(user: Any) -> dict[str, Any]:
    return {"annotation_campaigns": []}
