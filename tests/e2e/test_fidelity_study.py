"""A fidelity study end to end: two people answer in the workspace, two simulators answer on
the fake OpenAI server, and the report sets them side by side."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from testing.servers import Daphne, TemporaryDatabase
from tests.e2e.conftest import FAKE_LLM_CREDENTIAL, FAKE_LLM_PORT, log_in
from tests.fake_openai import Answer, FakeOpenAI, reply

pytestmark = pytest.mark.e2e

STUDY = "Browser fidelity study"
# Titles of their own: the response cache must not answer from another test.
ITEMS = [
    ("fe-1", "Quietwater Lane Browser", 4.5, 9000),
    ("fe-2", "Harbor Nights Browser", 4.0, 6000),
    ("fe-3", "Copper Meadow Browser", 2.5, 400),
    ("fe-4", "Glass Orchard Browser", 2.0, 300),
]
# Who would watch what: people's yes-rates follow the ratings, so Pearson r is defined.
WATCH = {
    "annotator1": {"Quietwater Lane Browser", "Harbor Nights Browser"},
    "annotator2": {"Quietwater Lane Browser"},
}
SIMULATORS = [("sim DI", "DI"), ("sim DI+PP", "DI+PP")]
SETUP = """
from fidelity.imports import ItemRow, store_items
from fidelity.models import Study
from fidelity.prompts import PromptCounts, make_prompts
study = Study.objects.create(name={name!r}, language="en", seed=11)
store_items(study, [ItemRow(*row) for row in {items!r}])
make_prompts(study, PromptCounts(items_talk=1, bin_pref=4, open_pref=0, rec_request=0,
                                 feedback_requests=0, items_per_persona=2))
print(study.pk)
"""


def simulated_user(body: dict[str, Any]) -> Answer:
    """A simulated user: names two films, and would watch all but the lowest rated one."""
    asked = body["messages"][-1]["content"]
    if "Would you watch" in asked:
        return reply(json.dumps({"answer": "no" if "Glass Orchard" in asked else "yes"}))
    return reply(json.dumps({"text": '"Quietwater Lane Browser" and "Copper Meadow Browser"'}))


def answer_as(page: Page, url: str, campaigns: list[str], username: str) -> None:
    log_in(page, url, username)
    for campaign in campaigns:
        page.goto(f"{url}{campaign}work/")
        while page.locator("#answer-form").count():
            prompt = page.locator(".prompt-text").inner_text()
            shown = page.locator("#workspace").get_attribute("data-transcript")
            films = page.locator("textarea[name=answer_films]")
            if films.count():
                films.fill("Harbor Nights Browser\nCopper Meadow Browser")
            else:
                answer = "Yes" if prompt in WATCH[username] else "No"
                page.locator("label.option", has_text=answer).click()
            page.locator("#answer-form button[type=submit]").click()
            expect(page.locator(f'#workspace[data-transcript="{shown}"]')).to_have_count(0)
    page.context.clear_cookies()


def test_people_and_simulators_answer_a_study_and_the_report_shows_them_side_by_side(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    database, server = app_server
    output = database.manage("shell", "-c", SETUP.format(name=STUDY, items=ITEMS), env=server.env)
    study = f"{server.url}/fidelity/{output.strip().splitlines()[-1]}/"
    fake = FakeOpenAI(port=FAKE_LLM_PORT).start()
    fake.script(*[simulated_user] * 10)
    try:
        log_in(page, server.url, "coordinator")
        page.goto(study)
        page.fill("#id_people", "2")
        page.locator("#send-form button[type=submit]").click()
        expect(page.locator("main")).to_contain_text("5 prompts sent to annotators.")
        campaigns = [
            re.sub(r"^https?://[^/]+", "", href)
            for href in page.locator("#people table a").evaluate_all(
                "links => links.map(link => link.href)"
            )
        ]
        assert len(campaigns) == 2
        for label, configuration in SIMULATORS:
            page.fill("#id_label", label)
            page.select_option("#id_configuration", configuration)
            page.select_option("#id_credential", FAKE_LLM_CREDENTIAL)
            page.fill("#id_model", fake.model)
            page.locator("#simulator-form button[type=submit]").click()
            page.locator(f'#simulator-list li[data-simulator="{label}"]').get_by_role(
                "button", name="Answer the prompts"
            ).click()
            page.wait_for_url(re.compile(r"/jobs/\d+/$"))
            expect(page.locator(".job-bar")).to_have_attribute(
                "data-status", "done", timeout=20_000
            )
            page.goto(study)
        page.context.clear_cookies()

        for username in WATCH:
            answer_as(page, server.url, campaigns, username)

        log_in(page, server.url, "coordinator")
        page.goto(study)
        page.locator("#collect-form button[type=submit]").click()
        expect(page.locator("main")).to_contain_text(
            "10 answers from people stored; 0 annotations left out."
        )
        page.locator("#report-link").click()
        table = page.locator("#task-bin_pref table.measures").first
        rows = table.locator("tbody tr")
        expect(rows).to_have_count(3)
        expect(rows.nth(0)).to_contain_text("people")
        expect(rows.nth(1)).to_contain_text("sim DI")
        expect(rows.nth(2)).to_contain_text("sim DI+PP")
        # People said yes 3 times in 8: their yes-rate; 4 answers per simulator.
        expect(rows.nth(0).locator("td").first).to_have_text("8")
        expect(rows.nth(1).locator("td").first).to_have_text("4")
        talk = page.locator("#task-items_talk table.measures").first.locator("tbody tr")
        expect(talk).to_have_count(3)
    finally:
        fake.stop()
    assert not fake.violations and fake.unused == 0
