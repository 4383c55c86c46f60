"""Judge alignment in the browser: two evaluator versions on the fake endpoint, three
adjudications, and the comparison read back."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from testing.servers import Daphne, TemporaryDatabase
from tests.e2e.conftest import (
    FAKE_LLM_PORT,
    fill_scoring_form,
    import_film_transcripts,
    open_scoring_page,
)
from tests.fake_openai import Answer, FakeOpenAI, reply

pytestmark = pytest.mark.e2e

CAMPAIGN = "Browser alignment check"
ITEMS = 24
ALIGNED = ("relevance", "overall")
# Three annotators answer near each item's true score (Film n has truth n % 5 + 1).
PEOPLE = f"""
from django.contrib.auth.models import Group, User
from django.utils import timezone
from annotation.models import Assignment, Campaign, Response
campaign = Campaign.objects.get(name={CAMPAIGN!r})
dimensions = [campaign.rubric.dimensions.get(key=key) for key in {ALIGNED!r}]
for index, name in enumerate(("e2e-ann", "e2e-bo", "e2e-cy")):
    user = User.objects.create_user(name)
    user.groups.add(Group.objects.get(name="annotators"))
    for transcript in campaign.transcripts.all():
        number = int(transcript.external_id.split("-")[1])
        value = min(5, number % 5 + 1 + (1 if (number + index) % 7 == 0 else 0))
        assignment = Assignment.objects.create(
            campaign=campaign, transcript=transcript, annotator=user,
            status="submitted", submitted_at=timezone.now(),
        )
        for dimension in dimensions:
            Response.objects.create(
                assignment=assignment, transcript=transcript, dimension=dimension, value=value
            )
"""


def verdicts(body: dict[str, Any]) -> Answer:
    """Scores from the conversation to score (the last film named): without examples the
    evaluator is one point too generous; with them it gets the truth."""
    prompt = body["messages"][1]["content"]
    keys = re.findall(r'"([a-z_]+)": \{"rationale"', prompt)
    truth = int(re.findall(r"Film (\d+)", prompt)[-1]) % 5 + 1
    generous = "# Conversations people have scored" not in prompt
    score = min(5, truth + 1) if generous else truth
    answer = {
        key: {"rationale": f"Rationale for {key}.", "score": score if key in ALIGNED else 1}
        for key in keys
    }
    return reply(json.dumps(answer))


def run_version(page: Page, url: str, fake: FakeOpenAI, label: str, few_shot: str) -> None:
    page.goto(url)
    fill_scoring_form(page, fake.model, concurrency=2)
    page.fill("#id_label", label)
    page.fill("#id_few_shot", few_shot)
    page.locator("#start-scoring").click()
    page.wait_for_url(re.compile(r"/jobs/\d+/$"))
    expect(page.locator(".job-bar .percent")).to_have_text("100%", timeout=30_000)


def test_two_versions_are_compared_after_three_adjudications(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne], tmp_path: Path
) -> None:
    database, server = app_server
    replies = [f"Try Film {n} (2009): slow, clever, set on the Moon." for n in range(ITEMS)]
    import_film_transcripts(app_server, tmp_path, CAMPAIGN, "align", replies)
    database.manage("shell", "-c", PEOPLE, env=server.env)
    fake = FakeOpenAI(port=FAKE_LLM_PORT).start()
    fake.script(*[verdicts] * (2 * ITEMS))
    try:
        open_scoring_page(page, server.url, CAMPAIGN)
        scoring = page.url
        run_version(page, scoring, fake, "plain", "0")
        run_version(page, scoring, fake, "fewshot", "3")
    finally:
        fake.stop()
    assert not fake.violations and fake.unused == 0

    page.goto(scoring)
    page.get_by_role("link", name="Judge alignment").click()
    page.locator("#queue-link").click()
    page.select_option("#version", "plain:fake-model@concept-v1")
    page.get_by_role("button", name="Show").click()
    for _ in range(3):
        page.locator(
            ".queue-dimension a.adjudicate-link", has_text=re.compile("^adjudicate$")
        ).first.click()
        expect(page.locator("#llm-scores")).to_contain_text("Rationale for")
        page.select_option("#id_score", "3")
        page.select_option("#id_reason", label="LLM misread")
        page.locator("#save-adjudication").click()
        page.wait_for_url(re.compile(r"/queue/$"))
    expect(
        page.locator(".queue-dimension a.adjudicate-link", has_text="adjudicated")
    ).to_have_count(3)

    page.goto(page.url.replace("queue/", ""))
    page.reload()
    compared = page.locator("#dimension-relevance tr.version-row")
    expect(compared).to_have_count(2)
    expect(compared.nth(0)).to_contain_text("plain:fake-model@concept-v1")
    expect(compared.nth(1)).to_contain_text("fewshot:fake-model@concept-v1")
    expect(page.locator("#replacement")).to_contain_text(
        "Best version on the calibration split: fewshot:fake-model@concept-v1"
    )
    expect(page.locator("#versions")).to_contain_text("fewshot:fake-model@concept-v1")
    exported = page.request.get(page.url + "adjudications.csv")
    table = list(csv.reader(io.StringIO(exported.text().lstrip("\ufeff"))))
    assert len(table) == 4 and {row[3] for row in table[1:]} == {"LLM misread"}
