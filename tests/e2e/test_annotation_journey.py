"""A coordinator runs an annotation campaign from pages alone, starting from an empty database.

They create a campaign with R = 2 and instructions on its settings page, import a Concept4CRS
zip with its item catalogs (built here from the project's own fixtures) into it, add two
annotators from a CSV file, and, once both have annotated every item, open the agreement report
and the CONCEPT scorecard, whose catalog came with the zip.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, FilePayload, Page, expect

from testing.servers import Daphne
from tests.annotation.conftest import concept4crs_zip
from tests.e2e.conftest import a_coordinator, empty_site, log_in

pytestmark = pytest.mark.e2e

KEY_FOR_KIND = {"likert": "4", "binary": "1", "pairwise": "0"}
PASSWORD = "journey-pass-5190"


@pytest.fixture
def site() -> Iterator[Daphne]:
    """A new database with one coordinator and nothing else."""
    with empty_site(a_coordinator("cora", PASSWORD)) as server:
        yield server


def annotate_everything(page: Page) -> int:
    """Answer every item the annotator is given, by keyboard; return how many."""
    answered = 0
    # The last answer swaps the workspace for the "nothing is waiting" message.
    while page.locator("#workspace fieldset.question").count():
        questions = page.locator("#workspace fieldset.question")
        expect(questions.first.locator("input").first).to_be_focused()
        item = page.locator("#workspace").get_attribute("data-transcript")
        for index in range(questions.count()):
            page.keyboard.press(KEY_FOR_KIND[questions.nth(index).get_attribute("data-kind") or ""])
        page.keyboard.press("Enter")
        answered += 1
        expect(page.locator(f'#workspace[data-transcript="{item}"]')).to_have_count(0)
    return answered


def test_a_coordinator_runs_an_annotation_campaign_from_pages_alone(
    page: Page, browser: Browser, site: Daphne, tmp_path: Path
) -> None:
    base_url, name = site.url, "Journey"
    page.context.add_cookies([{"name": "django_language", "value": "en", "url": base_url}])
    log_in(page, base_url, "cora", PASSWORD)

    page.goto(f"{base_url}/annotation/campaigns/")
    page.locator("#new-annotation-campaign").click()
    page.fill("#id_name", name)
    page.fill("#id_annotations_per_item", "2")
    page.fill("#id_instructions", "Read the whole dialogue first: https://example.org/guide")
    page.locator("main button.primary").click()
    expect(page.locator("#id_campaign option:checked")).to_have_text(name)

    archive = concept4crs_zip(tmp_path / "concept.zip")
    page.set_input_files("#id_file", str(archive))
    page.get_by_role("button", name="Import transcripts").click()
    expect(page.locator("#job-summary")).to_contain_text(
        f"3 transcripts imported into campaign {name} in", timeout=20_000
    )
    expect(page.locator(".job-details")).to_contain_text("Catalog redial imported")
    page.get_by_role("link", name=f"Open campaign {name}").click()
    expect(page.locator("h1")).to_have_text(name)
    expect(page.locator("main .lede")).to_contain_text("R = 2")
    campaign_url = page.url

    people = "username,email,role,campaign\n" + "".join(
        f"{who},,annotator,{name}\n" for who in ("ann", "ben")
    )
    page.goto(f"{base_url}/people/add/")
    page.set_input_files(
        "#id_file",
        files=[FilePayload(name="people.csv", mimeType="text/csv", buffer=people.encode())],
    )
    page.get_by_role("button", name="Check and add").click()
    links = page.locator("code.new-password-link")
    expect(links).to_have_count(2)
    accounts = [(who, links.nth(n).inner_text()) for n, who in enumerate(("ann", "ben"))]

    page.goto(campaign_url)
    for username, link in accounts:
        annotator = browser.new_context().new_page()
        annotator.context.add_cookies([{"name": "django_language", "value": "en", "url": base_url}])
        # Each person follows their link and chooses a password, then signs in with it.
        password = f"{username}-chosen-passw0rd"
        annotator.goto(link)
        annotator.fill("#id_new_password1", password)
        annotator.fill("#id_new_password2", password)
        annotator.locator("main button[type=submit]").click()
        annotator.wait_for_url("**/accounts/reset/done/")
        log_in(annotator, base_url, username, password)
        annotator.goto(f"{campaign_url}work/")
        expect(annotator.locator("details.instructions")).to_contain_text("whole")
        expect(annotator.locator("details.instructions a")).to_have_attribute(
            "href", "https://example.org/guide"
        )
        assert annotate_everything(annotator) == 3
        annotator.context.close()
    # The dashboard was not reloaded: its roster fetched the new figures by itself.
    expect(page.locator("#campaign-bar")).to_contain_text(
        "6 of 6 annotations submitted", timeout=10_000
    )

    page.get_by_role("link", name="Human–LLM agreement report").click()
    page.get_by_role("button", name="Compute the report").click()
    expect(page.locator("main .lede").first).to_contain_text(
        "from 3 items and 2 annotators", timeout=30_000
    )

    page.goto(campaign_url)
    page.get_by_role("link", name="CONCEPT scorecard").click()
    expect(page.locator('#catalogs li[data-dataset="redial_eval"]')).to_contain_text(
        "catalog redial"
    )
    expect(page.locator("#scorecard")).to_be_visible()
