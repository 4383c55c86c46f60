"""A fidelity study end to end, through the pages only: the coordinator creates it, uploads
its files, chooses the tasks, adds two simulators (one with an interaction history) that
answer on the fake OpenAI server, sends the prompts to people; two people answer in the
workspace; the report sets them side by side with the paper's figures and a verdict."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import FilePayload, Page, expect

from testing.servers import Daphne, TemporaryDatabase
from tests.e2e.conftest import FAKE_LLM_CREDENTIAL, FAKE_LLM_PORT, log_in
from tests.fake_openai import Answer, FakeOpenAI, reply

pytestmark = pytest.mark.e2e

STUDY = "Browser fidelity study"
# Titles of their own: the response cache must not answer from another test.
ITEMS_CSV = (
    "item_id,title,avg_rating,n_ratings\n"
    "fe-1,Quietwater Lane Browser,4.5,9000\n"
    "fe-2,Harbor Nights Browser,4.0,6000\n"
    "fe-3,Copper Meadow Browser,2.5,400\n"
    "fe-4,Glass Orchard Browser,2.0,300\n"
)
REQUESTS_JSONL = "\n".join(
    json.dumps(line)
    for line in (
        {"id": "q1", "request": "A calm film", "answer_items": ["fe-1"], "answer_text": "Calm."},
        {"id": "q2", "request": "A sea film", "answer_items": ["fe-2"], "answer_text": "Sea."},
    )
)
# Who would watch what: people's yes-rates per item (4.5, 4.0, 2.5, 2.0) are 1, ½, 0, 0.
WATCH = {
    "annotator1": {"Quietwater Lane Browser", "Harbor Nights Browser"},
    "annotator2": {"Quietwater Lane Browser"},
}
SIMULATORS = [("sim DI+PP", "DI+PP"), ("sim IH", "IH")]


def simulated_user(body: dict[str, Any]) -> Answer:
    """A simulated user: would watch all but the lowest rated film; names two films."""
    asked = body["messages"][-1]["content"]
    if "Would you watch" in asked:
        return reply(json.dumps({"answer": "no" if "Glass Orchard" in asked else "yes"}))
    return reply(json.dumps({"text": '"Quietwater Lane Browser" and "Copper Meadow Browser"'}))


def upload(page: Page, field: str, name: str, text: str) -> None:
    file: FilePayload = {"name": name, "mimeType": "text/plain", "buffer": text.encode()}
    page.set_input_files(f"#id_{field}", files=[file])
    page.locator(f"#{field}-upload button[type=submit]").click()


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


def set_up_study(page: Page, url: str) -> str:
    """Create the study, upload its files and draw items talk and binary preference."""
    log_in(page, url, "coordinator")
    page.goto(f"{url}/fidelity/")
    page.fill("#id_name", STUDY)
    page.fill("#id_seed", "11")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/fidelity/\d+/$"))
    study = page.url
    # Each file is read by a background job, whose page says what it stored.
    upload(page, "items", "items.csv", ITEMS_CSV)
    expect(page.locator("main")).to_contain_text("4 rows imported into study", timeout=15_000)
    page.goto(study)
    upload(page, "requests", "requests.jsonl", REQUESTS_JSONL)
    expect(page.locator("main")).to_contain_text("2 rows imported into study", timeout=15_000)
    page.goto(study)
    form = page.locator("#prompts-form")
    for task in ("open_pref", "rec_request", "feedback"):
        form.locator(f'input[name=tasks][value="{task}"]').uncheck()
    page.fill("#id_items_talk", "1")
    expect(page.locator("#id_bin_pref")).to_have_value("4")  # every item, within the data
    form.locator("button[type=submit]").click()
    expect(page.locator("main")).to_contain_text("5 prompts drawn.")
    expect(page.locator("#prompt-counts")).to_contain_text("Binary preference: 4")
    return study


def run_simulators(page: Page, study: str, fake: FakeOpenAI) -> None:
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
        expect(page.locator(".job-bar")).to_have_attribute("data-status", "done", timeout=20_000)
        expect(page.locator("main")).to_contain_text(
            f"Simulator {label} ({configuration}) answered 5 prompts of study {STUDY}"
        )
        page.get_by_role("link", name=f"Open study {STUDY}").click()
        page.wait_for_url(study)


def test_a_study_set_up_through_the_pages_is_answered_and_reported_side_by_side(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    _, server = app_server
    fake = FakeOpenAI(port=FAKE_LLM_PORT).start()
    fake.script(*[simulated_user] * 10)
    try:
        study = set_up_study(page, server.url)
        page.fill("#id_people", "2")
        page.locator("#send-form button[type=submit]").click()
        expect(page.locator("main")).to_contain_text("5 prompts sent to annotators.")
        campaigns = [
            re.sub(r"^https?://[^/]+", "", href)
            for href in page.locator("#people table a").evaluate_all(
                "links => links.map(link => link.href)"
            )
        ]
        assert len(campaigns) == 2  # only the two tasks drawn
        run_simulators(page, study, fake)
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
        section = page.locator("#task-bin_pref")
        rows = section.locator("table.measures").first.locator("tbody tr")
        expect(rows).to_have_count(3)
        # Answers, Pearson r, yes-rate: people r(4.5 4 2.5 2; 1 ½ 0 0) = 0.951, 3 yes in 8;
        # each simulator r(4.5 4 2.5 2; 1 1 1 0) = 0.700, 3 yes in 4.
        for row, (group, answers, pearson, yes_rate) in enumerate(
            (
                ("people", "8", "0.951", "0.375"),
                ("sim DI+PP", "4", "0.700", "0.750"),
                ("sim IH", "4", "0.700", "0.750"),
            )
        ):
            expect(rows.nth(row).locator("th")).to_have_text(group)
            cells = rows.nth(row).locator("td")
            expect(cells.nth(0)).to_have_text(answers)
            expect(cells.nth(1)).to_contain_text(pearson)
            expect(cells.nth(2)).to_contain_text(yes_rate)
        verdicts = section.locator("ul.verdicts li")
        expect(verdicts).to_have_count(2)
        # Four items give Pearson r no interval, and 4 prompts per person no alt-test: no test
        # of the difference, and no standing in for people without the evidence.
        for index, (label, _) in enumerate(SIMULATORS):
            expect(verdicts.nth(index)).to_contain_text(
                f"{label}: no test of the difference from people on Pearson r (rating, "
                "yes-rate); a value or an interval is missing."
            )
            expect(verdicts.nth(index)).to_contain_text(
                "The LLM cannot stand in for people: the alternative annotator test could not "
                "be run"
            )
            expect(verdicts.nth(index)).to_contain_text(
                "The alt-test is not available: no human annotator has 30 items that the LLM "
                "and another human also scored"
            )
        references = section.locator("p.task-references")
        expect(references).to_contain_text(
            "gpt-4, DI: Pearson r (rating, yes-rate) = 0.29 (Table 8, all frequencies)"
        )
        expect(references).to_contain_text(
            "gpt-4, DI+PP: Pearson r (rating, yes-rate) = 0.44 (Table 8, all frequencies)"
        )
        expect(section.locator(".bucket-references").first).to_contain_text("Table 3, frequent")
        talk = page.locator("#task-items_talk")
        expect(talk.locator("table.measures").first.locator("tbody tr")).to_have_count(3)
        expect(talk.locator("p.task-references")).to_contain_text("people: entropy (bits) = 12.61")
        expect(talk.locator("p.task-references")).to_contain_text(
            "gpt-4, IH: entropy (bits) = 9.03"
        )
        # The IH simulator's persona and history hold all four films: nothing it names counts.
        # Its cells: answers, Chao–Shen entropy, plug-in entropy, mentions.
        ih = talk.locator("table.measures tbody tr", has_text="sim IH")
        expect(ih.locator("td").nth(3)).to_have_text("0")
    finally:
        fake.stop()
    assert not fake.violations and fake.unused == 0
