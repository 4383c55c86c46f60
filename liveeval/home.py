from __future__ import annotations

from typing import Any

from evalsite import roles
from evalsite.home import HomeSection


def judge_section(user: Any) -> HomeSection:
    return HomeSection(roles.JUDGES, "liveeval/_home_judge.html", {"pending": []})


def coordinator_campaigns(user: Any) -> dict[str, Any]:
    return {"live_campaigns": []}
