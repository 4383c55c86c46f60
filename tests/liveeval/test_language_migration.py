"""Migration 0006 stores the language a judge actually wrote in for earlier dialogues."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("liveeval", "0005_reply_claim_deadline_and_bounded_timeout")]
AFTER = [("liveeval", "0006_dialogue_language_and_campaign_aliases")]


@pytest.mark.django_db(transaction=True)
def test_it_stores_the_language_of_the_judges_messages() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    system = apps.get_model("liveeval", "DialogueSystem").objects.create(
        slug="old-x", name="Old", alias="System Old", kind="reference"
    )
    sessions = apps.get_model("liveeval", "ChatSession").objects
    message = apps.get_model("liveeval", "Message").objects
    today = dt.date(2026, 12, 1)
    english = sessions.create(system=system, kind="judged", lang="zh", today=today)
    chinese = sessions.create(system=system, kind="judged", lang="zh", today=today)
    silent = sessions.create(system=system, kind="judged", lang="en", today=today)
    for position, text in enumerate(["flight to Shanghai", "ok", "好"]):
        message.create(session=english, position=position, role="user", text=text)
    message.create(session=chinese, position=0, role="user", text="明天去上海")

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    stored = dict(apps.get_model("liveeval", "ChatSession").objects.values_list("pk", "lang"))
    assert stored[english.pk] == "en"
    assert stored[chinese.pk] == "zh"
    assert stored[silent.pk] == "en"

    # Leave the database at the latest migration for the tests after this one.
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
