"""The judge's chat and rating pages (in both languages), the leaderboard and the coordinator's
navigation, as a phone shows them."""

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


def tappable(page: Page, selector: str) -> bool:
    """Whether a tap at the middle of the element reaches it: inside the window, not covered."""
    return bool(
        page.evaluate(
            """(selector) => {
              const element = document.querySelector(selector);
              const box = element.getBoundingClientRect();
              const x = box.left + box.width / 2, y = box.top + box.height / 2;
              if (box.left < 0 || box.right > innerWidth || y < 0 || y > innerHeight) return false;
              const hit = document.elementFromPoint(x, y);
              return hit === element || element.contains(hit);
            }""",
            selector,
        )
    )


def test_a_judge_rates_on_a_phone_in_chinese(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    _database, server = app_server
    page.set_viewport_size(PHONE)
    # "both" judges in the demo campaign too; the Chinese interface is chosen as people do.
    log_in(page, server.url, "both")
    with page.expect_navigation():
        page.select_option("#language-select", "zh-hans")
    page.locator("#start-next").click()
    expect(page.locator('#chat-status[data-live="1"]')).to_have_count(1)
    page.locator("#chat-input").fill("你好")
    page.locator("#chat-input").press("Enter")
    expect(page.locator("#chat-log .bubble.system")).to_have_count(1, timeout=15_000)
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#end-button").click()
    form = page.locator("#rating-form")
    expect(form).to_be_visible()
    expect(form).to_contain_text("任务是否完成？")
    shoot(page, "rating-390-zh-hans")
    assert overflow(page) == 0
    submit = form.locator("button[type=submit]")
    submit.scroll_into_view_if_needed()
    assert tappable(page, "#rating-form button[type=submit]")
    for name in ("completed", "satisfaction", "fluency", "guidance"):
        form.locator(f"input[name={name}]").first.check()
    submit.click()
    expect(page.locator(".rating-done")).to_be_visible()


def test_the_coordinators_navigation_stays_short_on_a_phone(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    _database, server = app_server
    page.set_viewport_size(PHONE)
    log_in(page, server.url, "coordinator")
    page.goto(f"{server.url}/live/campaigns/")
    heights = page.evaluate(
        "[document.querySelector('header.topbar').getBoundingClientRect().height,"
        " document.querySelector('nav.nav').getBoundingClientRect().height]"
    )
    shoot(page, "campaigns-390-en-coordinator")
    # It once took 290 px, a third of the screen, before any content.
    assert heights[0] <= 120 and heights[1] <= 120, heights
    assert overflow(page) == 0
