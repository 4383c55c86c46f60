"""The `talk` command and the scripted judges: every task card is completed by `reference`."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from liveeval.booking.models import City
from liveeval.booking.store import build_world
from liveeval.booking.timetable import world_dates
from liveeval.models import Booking, ChatSession, DialogueSystem, TaskCard
from tests.liveeval.scripted_judges import DEFAULT_TODAY, Script, all_scripts

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = all_scripts()


@pytest.fixture(scope="module")
def smp_world(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """One month of booking world shared by this module's tests, removed afterwards."""
    with django_db_blocker.unblock():
        build_world(world_dates(DEFAULT_TODAY, 28), force=True)
    yield
    with django_db_blocker.unblock():
        Booking.objects.all().delete()
        ChatSession.objects.all().delete()
        City.objects.all().delete()


def talk(system: str, lines: list[str], *args: str) -> list[str]:
    out = io.StringIO()
    call_command("talk", system, *args, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out)
    return out.getvalue().splitlines()


def goal_file(tmp_path: Path, goal: dict[str, Any]) -> str:
    path = tmp_path / "goal.json"
    path.write_text(json.dumps(goal, ensure_ascii=False), encoding="utf-8")
    return str(path)


@pytest.mark.django_db
@pytest.mark.usefixtures("smp_world")
@pytest.mark.parametrize("script", SCRIPTS, ids=[script.key for script in SCRIPTS])
def test_every_task_card_is_completed_by_the_reference_system(
    script: Script, tmp_path: Path
) -> None:
    lines = talk(
        "reference",
        script.utterances,
        "--goal",
        goal_file(tmp_path, script.goal),
        "--today",
        script.today.isoformat(),
        "--lang",
        script.lang,
    )
    replies, summary = lines[:-1], json.loads(lines[-1])
    assert len(replies) == len(script.utterances)
    assert all(line.startswith("R: ") for line in replies)
    assert summary["completed"] is True, "\n".join(lines)
    assert summary["turns"] == 2 * len(script.utterances)
    assert len(summary["bookings"]) >= len(script.goal["intents"])


def test_the_scripts_cover_every_card_and_the_required_phrasings() -> None:
    cards = {script.key for script in SCRIPTS}
    assert len(cards) >= 24
    domains = [tuple(i["domain"] for i in s.goal["intents"]) for s in SCRIPTS]
    assert sum(d == ("flight",) for d in domains) >= 8
    assert sum(d == ("train",) for d in domains) >= 8
    assert sum(d == ("hotel",) for d in domains) >= 6
    assert sum(len(d) > 1 for d in domains) >= 4
    text = "\n".join(u for s in SCRIPTS for u in s.utterances)
    for phrase in ("明天", "后天", "周五", "随便", "最便宜", "不对", "以内", "高铁", "晚"):
        assert phrase in text, phrase
    assert {s.lang for s in SCRIPTS} == {"zh", "en"}


@pytest.mark.django_db
@pytest.mark.usefixtures("smp_world")
def test_talk_stores_the_conversation_like_any_other() -> None:
    lines = talk("reference", ["明天从北京到上海的机票", "上午", "好的"], "--today", "2026-12-01")
    assert len(lines) == 3
    session = ChatSession.objects.get(kind=ChatSession.Kind.TALK)
    assert session.system.slug == "reference" and session.status == ChatSession.Status.ENDED
    assert list(session.messages.values_list("role", flat=True)) == ["user", "system"] * 3
    assert session.bookings.filter(status="active").count() == 1


@pytest.mark.django_db
@pytest.mark.usefixtures("smp_world")
def test_the_baseline_fails_where_the_reference_succeeds(tmp_path: Path) -> None:
    script = next(s for s in SCRIPTS if s.key == "flight-02")  # one slot per utterance
    args = ["--goal", goal_file(tmp_path, script.goal), "--today", script.today.isoformat()]
    baseline = json.loads(talk("baseline", script.utterances, *args)[-1])
    reference = json.loads(talk("reference", script.utterances, *args)[-1])
    assert (reference["completed"], baseline["completed"]) == (True, False)


@pytest.mark.django_db
def test_it_names_unknown_systems() -> None:
    with pytest.raises(CommandError, match="no system 'nope'; known systems: baseline, reference"):
        talk("nope", ["hi"])


@pytest.mark.django_db
def test_it_refuses_a_date_outside_the_world() -> None:
    with pytest.raises(CommandError, match="does not cover 2030-01-01"):
        talk("reference", ["hi"], "--today", "2030-01-01")


@pytest.mark.django_db
def test_it_rejects_a_bad_goal_file(tmp_path: Path) -> None:
    bad = tmp_path / "goal.json"
    bad.write_text('{"intents": [{"domain": "boat", "constraints": {}}]}')
    with pytest.raises(CommandError, match="--goal"):
        talk("reference", ["hi"], "--goal", str(bad))


@pytest.mark.django_db
@pytest.mark.usefixtures("smp_world")
def test_a_system_error_prints_one_line_and_exits_non_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from liveeval import systems

    DialogueSystem.objects.create(slug="broken", name="Broken", alias="System Z", kind="t-broken")
    monkeypatch.setitem(systems.ADAPTERS, "t-broken", "tests.liveeval.fake_systems.broken_adapter")
    with pytest.raises(CommandError, match="system broken failed: HTTP 500 from the team's"):
        talk("broken", ["hello"], "--today", "2026-12-01", "--lang", "en")


@pytest.mark.django_db
@pytest.mark.usefixtures("smp_world")
def test_the_last_error_line_names_the_cause_in_english_in_a_chinese_dialogue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from liveeval import systems

    DialogueSystem.objects.create(slug="broken", name="Broken", alias="System Z", kind="t-broken")
    monkeypatch.setitem(systems.ADAPTERS, "t-broken", "tests.liveeval.fake_systems.broken_adapter")
    with pytest.raises(CommandError) as failure:
        talk("broken", ["你好"], "--today", "2026-12-01", "--lang", "zh")
    assert str(failure.value) == "system broken failed: HTTP 500 from the team's server"
    notice = ChatSession.objects.get(system__slug="broken").messages.get(role="notice")
    assert notice.text == "系统暂时不可用。"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("builtin_systems")
@pytest.mark.processes
def test_talk_works_in_a_pipe(tmp_path: Path) -> None:
    """A real process reading a real pipe, as outside checks run it."""
    build_world(world_dates(DEFAULT_TODAY, 3), force=True)
    TaskCard.objects.all().delete()
    goal = {
        "intents": [
            {
                "domain": "train",
                "constraints": {"from_city": "北京", "to_city": "天津", "date": "+1"},
            }
        ]
    }
    settings_dict = connection.settings_dict
    if connection.vendor == "sqlite":
        url = f"sqlite:///{settings_dict['NAME']}"
    else:
        url = (
            f"postgres://{settings_dict['USER']}@{settings_dict['HOST']}:"
            f"{settings_dict['PORT']}/{settings_dict['NAME']}"
        )
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "talk",
            "reference",
            "--goal",
            goal_file(tmp_path, goal),
            "--today",
            DEFAULT_TODAY.isoformat(),
        ],
        input="明天北京到天津的火车\n几点都可以\n好的\n没有了，谢谢\n",
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": url, "DEBUG": "1"},
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 5 and all(line.startswith("R: ") for line in lines[:4])
    assert json.loads(lines[-1])["completed"] is True
    assert "Traceback" not in result.stderr
