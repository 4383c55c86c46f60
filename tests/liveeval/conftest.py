from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User

from liveeval import systems
from liveeval.models import Campaign, ChatSession, DialogueSystem, TaskCard

TODAY = dt.date(2026, 12, 1)

FLIGHT_GOAL = {
    "intents": [
        {
            "domain": "flight",
            "constraints": {"from_city": "北京", "to_city": "上海", "date": "+1"},
        }
    ]
}


@pytest.fixture
def builtin_systems(db: None) -> dict[str, DialogueSystem]:
    """The reference and baseline rows, which a transactional test's flush may have removed."""
    import importlib

    migration = importlib.import_module("liveeval.migrations.0002_builtin_systems")
    return {
        row["slug"]: DialogueSystem.objects.update_or_create(slug=row["slug"], defaults=row)[0]
        for row in migration.BUILTIN
    }


@pytest.fixture
def fake_systems(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(systems.ADAPTERS, "test-echo", "tests.liveeval.fake_systems.echo_adapter")
    monkeypatch.setitem(
        systems.ADAPTERS, "test-in-process", "tests.liveeval.fake_systems.in_process_echo_adapter"
    )
    monkeypatch.setitem(systems.ADAPTERS, "test-slow", "tests.liveeval.fake_systems.slow_adapter")
    monkeypatch.setitem(systems.ADAPTERS, "test-paced", "tests.liveeval.fake_systems.paced_adapter")
    monkeypatch.setitem(
        systems.ADAPTERS, "test-broken", "tests.liveeval.fake_systems.broken_adapter"
    )
    yield


def make_system(kind: str, slug: str, alias: str, name: str = "") -> DialogueSystem:
    return DialogueSystem.objects.create(
        slug=slug, name=name or f"Secret {slug} engine", alias=alias, kind=kind
    )


def make_task(key: str = "flight-x", penalty: int = 30) -> TaskCard:
    return TaskCard.objects.create(
        key=key,
        title_zh="北京到上海的机票",
        title_en="A flight from Beijing to Shanghai",
        description_zh="预定明天从北京去上海的机票。",
        description_en="Book a flight from Beijing to Shanghai tomorrow.",
        goal=FLIGHT_GOAL,
        turn_penalty=penalty,
    )


def make_campaign(name: str = "SMP demo", *, max_turns: int = 20, timeout: float = 2.0) -> Campaign:
    return Campaign.objects.create(
        name=name,
        today=TODAY,
        lang="zh",
        max_turns=max_turns,
        reply_timeout=timeout,
        status=Campaign.Status.OPEN,
    )


def judged_session(
    judge: User,
    system: DialogueSystem,
    campaign: Campaign,
    *,
    task: TaskCard | None = None,
    status: str = ChatSession.Status.OPEN,
) -> ChatSession:
    return ChatSession.objects.create(
        system=system,
        task=task,
        campaign=campaign,
        kind=ChatSession.Kind.JUDGED,
        user=judge,
        lang="zh",
        today=campaign.today,
        status=status,
        position=0,
    )
