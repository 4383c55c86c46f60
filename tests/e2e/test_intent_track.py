"""A team uploads a prediction file in the browser, sees its score, and the leaderboard moves."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from intent.demo import DEMO_TRACK
from intent.demo_utterances import utterances
from tests.e2e.conftest import log_in

pytestmark = pytest.mark.e2e


def test_a_team_uploads_predictions_sees_its_score_and_takes_the_lead(
    page: Page, base_url: str, tmp_path: Path
) -> None:
    log_in(page, base_url, "team2")
    page.get_by_role("link", name=DEMO_TRACK).click()
    page.get_by_role("link", name="Leaderboard").first.click()
    rows = page.locator("#leaderboard tbody tr")
    expect(rows.first).to_contain_text("Team One")
    page.go_back()

    # The demo's test split, every label right.
    test = utterances(8, seed=3, start=10000)
    predictions = tmp_path / "perfect.csv"
    predictions.write_text(
        "id,label\n" + "".join(f"{row.id},{row.label}\n" for row in test), encoding="utf-8"
    )
    page.set_input_files("#team input[type=file]", str(predictions))
    page.get_by_role("button", name="Submit predictions").click()
    expect(page.locator("#official-f")).to_contain_text("1.0000")
    # A team sees the figures of the whole part: per-class counts would give gold labels away.
    expect(page.locator("#no-breakdown")).to_be_visible()
    expect(page.locator("#per-class")).to_have_count(0)

    page.get_by_role("link", name=DEMO_TRACK).click()
    page.get_by_role("link", name="Leaderboard").first.click()
    expect(rows.first).to_contain_text("Team Two")
    expect(rows.first).to_contain_text("1.0000")
    expect(rows.nth(1)).to_contain_text("Team One")
