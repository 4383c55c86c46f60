from __future__ import annotations

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
from tests.fake_openai import Answer, FakeOpenAI, reply, slow

pytestmark = pytest.mark.e2e

CAMPAIGN = "Browser LLM check"
TRANSCRIPTS = 4


def slow_verdicts(body: dict[str, Any]) -> Answer:
    """A valid answer to whatever the request asks, a little later, like a remote model."""
    keys = re.findall(r'"([a-z_]+)": \{"rationale"', body["messages"][1]["content"])
    answer = {key: {"rationale": f"Why {key}.", "score": 1} for key in keys}
    return slow(0.3, reply(json.dumps(answer)))


def test_a_coordinator_starts_a_scoring_job_and_watches_it_reach_100_percent(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne], tmp_path: Path
) -> None:
    _, server = app_server
    # Replies of their own: the response cache must not answer from another test.
    replies = [f"Try Film {n} (2010): slow, bright, set on Mars." for n in range(TRANSCRIPTS)]
    import_film_transcripts(app_server, tmp_path, CAMPAIGN, "llm", replies)
    fake = FakeOpenAI(port=FAKE_LLM_PORT).start()
    fake.script(*[slow_verdicts] * TRANSCRIPTS)
    try:
        open_scoring_page(page, server.url, CAMPAIGN)
        fill_scoring_form(page, fake.model, concurrency=1)
        page.locator("#start-scoring").click()

        page.wait_for_url(re.compile(r"/jobs/\d+/$"))
        bar = page.locator(".job-bar")
        expect(bar.locator(".percent")).to_have_text("100%", timeout=30_000)
        expect(bar).to_have_attribute("data-status", "done")
        expect(page.locator("#job-summary")).to_contain_text(
            f"{TRANSCRIPTS} transcripts scored by fake-model@concept-v1 in"
        )

        page.go_back()
        page.reload()
        runs = page.locator("#llm-runs")
        expect(runs).to_contain_text("fake-model@concept-v1")
        expect(runs).to_contain_text(f"{TRANSCRIPTS} / {TRANSCRIPTS} (100%)")
    finally:
        fake.stop()
    assert not fake.violations and fake.unused == 0
    assert len(fake.requests) == TRANSCRIPTS
