"""The judge's chat and rating pages and the leaderboard, as a phone shows them."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from liveeval.demo import DEMO_CAMPAIGN
from testing.servers import Daphne, TemporaryDatabase
from tests.e2e.conftest import SHOTS, log_in

pytestmark = pytest.mark.e2e

PHONE: ViewportSize = {"width": 390, "height": 844}


def overflow(page: Page) -> int:
    """How many pixels the page is wider than the window (0 when nothing overflows)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_judge_on_a_phone_chats_reloads_and_rates_then_the_leaderboard_fits(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    _database, server = app_server
    page.set_viewport_size(PHONE)
    # judge2's first conversation of the demo campaign.
    log_in(page, server.url, "judge2")
    page.locator("#start-next").click()
    expect(page.locator('#chat-status[data-live="1"]')).to_have_count(1)
    page.locator("#chat-input").fill("hello")
    page.locator("#chat-input").press("Enter")
    expect(page.locator("#chat-log .bubble.system")).to_have_count(1, timeout=15_000)

    page.reload()
    expect(page.locator("#chat-log .bubble")).to_have_count(2)
    # The conversation's messages must not leak into the flash-message list above it.
    expect(page.locator("ul.messages")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text("#0 user")
    assert overflow(page) == 0
    shoot(page, "chat-390-en")

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#end-button").click()
    form = page.locator("#rating-form")
    expect(form).to_be_visible()
    shoot(page, "rating-390-en")
    assert overflow(page) == 0
    submit = form.get_by_role("button", name="Submit rating")
    submit.scroll_into_view_if_needed()
    box = submit.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    form.get_by_label("Yes, the task was completed").check()
    form.get_by_label("0 · Neutral").check()
    form.get_by_label("0 · Understandable, a little awkward").check()
    form.get_by_label("0 · No useful guidance").check()
    submit.click()
    expect(page.locator(".rating-done")).to_contain_text("locked")

    page.context.clear_cookies()
    log_in(page, server.url, "coordinator")
    page.goto(f"{server.url}/live/campaigns/")
    page.get_by_role("link", name=DEMO_CAMPAIGN).click()
    page.get_by_role("link", name="Leaderboard").first.click()
    expect(page.locator("#leaderboard-human")).to_be_visible()
    shoot(page, "leaderboard-390-en")
    assert overflow(page) == 0
