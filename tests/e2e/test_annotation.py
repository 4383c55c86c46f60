from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, FilePayload, Page, expect

from tests.e2e.conftest import log_in

pytestmark = pytest.mark.e2e

KEY_FOR_KIND = {"likert": "4", "binary": "1", "pairwise": "0"}


def score_with_the_keyboard(page: Page) -> None:
    """Answer every question of the item on screen with digits, then submit with Enter."""
    questions = page.locator("#workspace fieldset.question")
    # The page's script is ready once it has focused the first question.
    expect(questions.first.locator("input").first).to_be_focused()
    item_url = page.url
    kinds = [questions.nth(i).get_attribute("data-kind") for i in range(questions.count())]
    for kind in kinds:
        assert kind is not None
        page.keyboard.press(KEY_FOR_KIND[kind])
    if len(kinds) > 1:
        # Focus stays on the last question; K goes back one and 2 changes that answer. (Items
        # come in an order shuffled per annotator, so some have a single question.)
        page.keyboard.press("K")
        page.keyboard.press("2")
        expect(questions.nth(len(kinds) - 2).locator("input:checked")).to_have_value("2")
    page.keyboard.press("Enter")
    expect(page).not_to_have_url(item_url)


def test_an_annotator_scores_two_items_by_keyboard_and_a_coordinator_sees_an_upload_error(
    page: Page, browser: Browser, base_url: str
) -> None:
    log_in(page, base_url, "annotator1")
    page.locator('[data-role="annotators"] a.queue-link', has_text="CONCEPT demo").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#workspace fieldset.question input").first).to_be_focused()

    page.keyboard.press("?")
    expect(page.locator("#shortcuts")).to_have_attribute("open", "")
    page.keyboard.press("?")
    expect(page.locator("#shortcuts")).not_to_have_attribute("open", "")

    score_with_the_keyboard(page)
    expect(page.locator('[data-bar="mine"] .bar-done')).to_have_text("1")
    score_with_the_keyboard(page)
    expect(page.locator('[data-bar="mine"] .bar-done')).to_have_text("2")
    # The pushed URL is the next item's own page: reloading it shows the same item.
    shown = page.locator("#workspace").get_attribute("data-transcript")
    page.reload()
    expect(page.locator("#workspace")).to_have_attribute("data-transcript", shown or "")

    coordinator = browser.new_context().new_page()
    log_in(coordinator, base_url, "coordinator")
    coordinator.goto(f"{base_url}/annotation/campaigns/")
    coordinator.get_by_role("link", name="CONCEPT demo").click()
    done = coordinator.locator('[data-annotator="annotator1"] .done')
    expect(done).to_have_text("2")

    good = {"id": "e2e-1", "turns": [{"role": "user", "text": "Hello"}]}
    bad = {"id": "e2e-2", "turns": [{"role": "narrator", "text": "Once upon a time"}]}
    coordinator.goto(f"{base_url}/annotation/import/")
    coordinator.fill("#id_new_campaign", "Uploaded in the browser")
    coordinator.select_option("#id_format", "jsonl")
    coordinator.set_input_files(
        "#id_file",
        files=[
            FilePayload(
                name="transcripts.jsonl",
                mimeType="application/x-ndjson",
                buffer=f"{json.dumps(good)}\n{json.dumps(bad)}\n".encode(),
            )
        ],
    )
    coordinator.get_by_role("button", name="Import transcripts").click()
    expect(coordinator).to_have_url(re.compile(rf"{re.escape(base_url)}/jobs/\d+/$"))
    expect(coordinator.locator(".errors")).to_contain_text(
        "transcripts.jsonl line 2: turns[0].role must be 'user' or 'system'", timeout=15_000
    )
    expect(coordinator.locator(".job-bar")).to_have_attribute("data-status", "failed")
    coordinator.goto(f"{base_url}/annotation/campaigns/")
    expect(coordinator.get_by_role("link", name="Uploaded in the browser")).to_have_count(0)
