"""A coordinator runs a live evaluation from pages alone, starting from an empty database.

They add the example HTTP system and test its connection, make a campaign with it and the
reference system, invite three judges with one link; the judges sign up, chat and rate; the
coordinator sees the progress arrive without a reload and reads the leaderboard.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from testing.servers import Daphne, free_port
from tests.e2e.conftest import a_coordinator, empty_site

pytestmark = pytest.mark.e2e

BOT = Path(__file__).resolve().parents[2] / "examples" / "http_system" / "bot.py"
PASSWORD = "journey-pass-4821"
JUDGE_PASSWORD = "judge-pass-7735"
# The task cards, one day of the booking world and the coordinator, in one process.
SET_UP = (
    "from django.core.management import call_command; "
    "call_command('load_task_cards'); "
    "call_command('build_booking_world', '--days', '1'); " + a_coordinator("cora", PASSWORD)
)


@pytest.fixture
def example_bot() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(BOT), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def site() -> Iterator[Daphne]:
    """A new database with the task cards, the booking world and one coordinator; no one else."""
    with empty_site(SET_UP) as server:
        yield server


def log_in(page: Page, url: str, username: str, password: str) -> None:
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.locator("main button[type=submit]").click()
    page.wait_for_url(f"{url}/")


def chat_and_rate(page: Page) -> None:
    page.locator("#start-next").click()
    expect(page.locator('#chat-status[data-live="1"]')).to_have_count(1)
    box = page.locator("#chat-input")
    box.fill("你好")
    box.press("Enter")
    expect(page.locator("#chat-log .bubble.system, #chat-log .bubble.notice")).to_have_count(
        1, timeout=15_000
    )
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#end-button").click()
    form = page.locator("#rating-form")
    form.get_by_label("No", exact=True).check()
    form.get_by_label("0 · Neutral").check()
    form.get_by_label("1 · Fluent and natural").check()
    form.get_by_label("0 · No useful guidance").check()
    form.get_by_role("button", name="Submit rating").click()
    expect(page.locator(".rating-done")).to_be_visible()
    page.goto(page.url.split("/live/")[0] + "/")


def test_a_coordinator_runs_a_live_evaluation_from_pages_alone(
    browser: Browser, page: Page, site: Daphne, example_bot: str
) -> None:
    url = site.url
    page.context.add_cookies([{"name": "django_language", "value": "en", "url": url}])
    log_in(page, url, "cora", PASSWORD)

    page.goto(f"{url}/live/systems/new/?kind=http")
    page.fill("#id_slug", "team-bot")
    page.fill("#id_name", "Example bot")
    page.fill("#id_endpoint", example_bot)
    page.locator("main button.primary").click()
    row = page.locator("#system-team-bot")
    row.get_by_role("button", name="Test connection").click()
    expect(row.locator(".check-ok")).to_contain_text(" ms")

    page.goto(f"{url}/live/campaigns/new/")
    page.fill("#id_name", "Journey round")
    page.get_by_label("Example bot (team-bot)").check()
    page.get_by_label("Reference booking assistant (reference)").check()
    page.locator("#id_tasks input[value]").nth(0).check()
    page.locator("#id_tasks input[value]").nth(1).check()
    page.fill("#id_judgements_per_pair", "1")
    page.locator("main button.primary").click()
    campaign_url = page.url

    page.goto(f"{url}/people/invitations/")
    page.select_option("#id_team", label="Live campaign: Journey round")
    page.fill("#id_max_uses", "3")
    page.locator("main button.primary").click()
    link = page.locator("input.invitation-link").first.input_value()

    judges = []
    for name in ("judge-a", "judge-b", "judge-c"):
        context = browser.new_context()
        context.add_cookies([{"name": "django_language", "value": "en", "url": url}])
        judge = context.new_page()
        judge.goto(link)
        judge.fill("#id_username", name)
        judge.fill("#id_password1", JUDGE_PASSWORD)
        judge.fill("#id_password2", JUDGE_PASSWORD)
        judge.locator("main button.primary").click()
        judge.wait_for_url(f"{url}/")
        judges.append(judge)

    page.goto(campaign_url)
    page.locator("#open-campaign").click()
    expect(page.locator("#campaign-changes")).to_have_attribute("data-socket", "open")
    overall = page.locator("#campaign-progress .progress-numbers").first
    expect(overall).to_have_attribute("data-pending", "4")

    # A conversation that a judge starts shows at once: its notice came over the page's socket,
    # since the page does not poll again for 20 s while the socket is open.
    judges[0].goto(f"{url}/")
    judges[0].locator("#start-next").click()
    expect(judges[0].locator('#chat-status[data-live="1"]')).to_have_count(1)
    expect(overall).to_have_attribute("data-in-progress", "1", timeout=4_000)
    judges[0].goto(f"{url}/")

    for judge in judges:
        judge.goto(f"{url}/")
        expect(judge.locator("#start-next")).to_be_visible()
        while judge.locator("#start-next").count():
            chat_and_rate(judge)
    # The page was not reloaded: its progress part fetched the new figures by itself.
    expect(overall).to_have_attribute("data-done", "4", timeout=10_000)

    page.get_by_role("link", name="Leaderboard").first.click()
    expect(page.locator("#leaderboard-human tr[data-system=reference]")).to_be_visible()
    expect(page.locator("#leaderboard-human tr[data-system=team-bot]")).to_be_visible()
