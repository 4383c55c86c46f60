from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from testing import counting
from testing.servers import Daphne, TemporaryDatabase
from tests.e2e.conftest import log_in

pytestmark = pytest.mark.e2e


def test_a_judge_logs_in_switches_to_chinese_and_back_and_logs_out(
    page: Page, base_url: str
) -> None:
    log_in(page, base_url, "judge1")
    expect(page.locator('[data-role="judges"]')).to_be_visible()
    expect(page.locator('[data-role="coordinators"]')).to_have_count(0)

    page.select_option("#language-select", "zh-hans")
    page.wait_for_load_state("load")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page.get_by_role("button", name="退出")).to_be_visible()
    expect(page.get_by_role("heading", name="评测员")).to_be_visible()
    expect(page.get_by_role("button", name="开始下一个对话")).to_be_visible()
    # The choice is the judge's own now: a fresh browser shows it after logging in.
    fresh = page.context.browser.new_context().new_page()  # type: ignore[union-attr]
    log_in(fresh, base_url, "judge1")
    expect(fresh.locator("html")).to_have_attribute("lang", "zh-hans")
    fresh.context.close()
    # Back to English, which the other browser tests of this judge expect.
    page.select_option("#language-select", "en")
    page.wait_for_load_state("load")
    expect(page.locator("html")).to_have_attribute("lang", "en")

    page.get_by_role("button", name="Log out").click()
    page.goto(f"{base_url}/")
    expect(page).to_have_url(f"{base_url}/accounts/login/?next=/")


def test_a_coordinator_sees_a_job_finish_live(
    page: Page, base_url: str, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    database, server = app_server
    job_id = counting.store_interrupted(database, server.env, total=15, delay=0.1)
    log_in(page, base_url, "coordinator")
    expect(page.locator('[data-role="coordinators"]')).to_be_visible()
    page.goto(f"{base_url}/jobs/")
    page.get_by_role("link", name=str(job_id), exact=True).click()
    page.get_by_role("button", name="Resume").click()
    bar = page.locator(".job-bar")
    expect(bar).to_have_attribute("data-status", "done", timeout=15_000)
    expect(bar).to_have_attribute("data-percent", "100")
    expect(page.locator("#job-summary")).to_contain_text("their sum is 105")
