from __future__ import annotations

import io
import re

import openpyxl
import pytest
from playwright.sync_api import Page, expect

from testing.servers import Daphne, TemporaryDatabase
from tests.e2e.conftest import log_in

pytestmark = pytest.mark.e2e

# The judge books what task card flight-01 asks: Beijing to Shanghai tomorrow, morning or noon.
UTTERANCES = ["我想订一张明天从北京去上海的机票", "上午或者中午", "好的"]


def say(page: Page, text: str, replies_before: int) -> None:
    box = page.locator("#chat-input")
    box.fill(text)
    box.press("Enter")
    expect(page.locator("#chat-log .bubble.system")).to_have_count(
        replies_before + 1, timeout=15_000
    )


def test_a_judge_books_a_flight_rates_it_and_the_coordinator_sees_it(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    database, server = app_server
    database.manage(
        "create_campaign",
        "Browser flight check",
        "--systems",
        "reference",
        "--tasks",
        "flight-01",
        "--judges",
        "judge3",
        "--k",
        "1",
        "--open",
        env=server.env,
    )
    log_in(page, server.url, "judge3")
    page.locator("#start-next").click()
    # A Chinese campaign shows its Chinese card in the English interface.
    expect(page.locator(".task-description")).to_contain_text("北京")
    expect(page.locator(".chat-head strong")).to_have_text(re.compile(r"^System \d{3}$"))
    alias = page.locator(".chat-head strong").inner_text()
    expect(page.locator("body")).not_to_contain_text("Reference booking assistant")
    # The server's first frame marks the socket as connected.
    expect(page.locator('#chat-status[data-live="1"]')).to_have_count(1)

    for number, text in enumerate(UTTERANCES):
        say(page, text, number)
    expect(page.locator("#chat-log .bubble.system").last).to_contain_text("FL-")
    expect(page.locator(".turn-counter")).to_contain_text("6")

    page.reload()  # the whole dialogue survives a reload
    expect(page.locator("#chat-log .bubble")).to_have_count(6)
    expect(page.locator('#chat-status[data-live="1"]')).to_have_count(1)

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#end-button").click()
    form = page.locator("#rating-form")
    expect(form).to_be_visible()
    form.get_by_label("Yes, the task was completed").check()
    form.get_by_label("1 · Satisfied").check()
    form.get_by_label("1 · Fluent and natural").check()
    form.get_by_label("1 · Guided me when my request could not be met").check()
    form.locator("textarea").fill("Booked at the first try.")
    form.get_by_role("button", name="Submit rating").click()
    expect(page.locator(".rating-done")).to_contain_text("locked")

    page.context.clear_cookies()
    log_in(page, server.url, "coordinator")
    page.goto(f"{server.url}/live/campaigns/")
    page.get_by_role("link", name="Browser flight check").click()
    page.get_by_role("link", name="Leaderboard").first.click()
    row = page.locator("#leaderboard-human tr[data-system=reference]")
    expect(row).to_contain_text(alias)
    expect(row).to_contain_text("1.000")
    with page.expect_download() as download_info:
        page.locator("#leaderboard-xlsx").click()
    data = download_info.value.path().read_bytes()
    workbook = openpyxl.load_workbook(io.BytesIO(data))
    assert workbook.sheetnames[0] == "About"
    sheet = workbook["Leaderboard"]
    header = [cell.value for cell in sheet[1]]
    values = dict(zip(header, [cell.value for cell in sheet[2]], strict=True))
    # The file holds the alias code, the same in every language, and the name judges read.
    assert values["alias_label"] == alias and values["alias"] == "S" + alias.split()[-1]
    assert values["completion_rate"] == 1
    assert values["sessions"] == 1
