"""The annotator's workspace on a phone: what keys say in the page, the shortcut sheet, undo,
and answers kept across a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import log_in

pytestmark = pytest.mark.e2e


def in_view(page: Page, selector: str) -> bool:
    return bool(
        page.evaluate(
            """(selector) => {
                const box = document.querySelector(selector).getBoundingClientRect();
                return box.top >= 0 && box.top < window.innerHeight;
            }""",
            selector,
        )
    )


def test_keys_explain_themselves_and_a_skip_can_be_undone(browser: Browser, base_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    log_in(page, base_url, "annotator2")
    page.locator('[data-role="annotators"] a.queue-link', has_text="CONCEPT demo").click()
    first = page.locator("#workspace fieldset.question").first
    expect(first.locator("input").first).to_be_focused()
    # The page opens at its top, with the transcript in view, not scrolled to the rubric.
    assert page.evaluate("window.scrollY") == 0
    assert in_view(page, ".transcript-pane")
    # The Enter hint on Submit is readable: its text has the button's colour, not the kbd box's.
    colours = page.evaluate(
        """() => {
            const button = document.querySelector('#answer-form button.primary');
            const kbd = button.querySelector('kbd');
            return [getComputedStyle(kbd).color, getComputedStyle(button).color,
                    getComputedStyle(kbd).backgroundColor];
        }"""
    )
    assert colours[0] == colours[1] and colours[2] == "rgba(0, 0, 0, 0)"

    page.keyboard.press("9")
    feedback = page.locator("#key-feedback")
    expect(feedback).to_be_visible()
    expect(feedback).to_contain_text("9 is not on the scale of")
    expect(first.locator("input:checked")).to_have_count(0)

    item_url = page.url
    page.keyboard.press("Enter")
    name = " ".join(first.locator("legend").inner_text().split())
    expect(feedback).to_have_text(f"Answer {name} before submitting.")
    assert page.url == item_url

    page.keyboard.press("?")
    expect(page.locator("#shortcuts")).to_have_attribute("open", "")
    assert in_view(page, "#shortcuts")
    page.keyboard.press("Escape")

    skipped = page.locator("#workspace").get_attribute("data-transcript")
    page.keyboard.press("S")
    expect(page.locator("#workspace")).not_to_have_attribute("data-transcript", skipped or "")
    expect(page.locator(".undo-skip")).to_be_visible()
    page.keyboard.press("U")
    expect(page.locator("#workspace")).to_have_attribute("data-transcript", skipped or "")

    # An answer given but not submitted survives a reload.
    question = page.locator("#workspace fieldset.question").first
    key = question.locator("input[type=radio]").last.get_attribute("value") or ""
    question.locator("input").first.focus()
    page.keyboard.press(key)
    expect(question.locator("input:checked")).to_have_value(key)
    page.goto(base_url + (page.locator("#answer-form").get_attribute("action") or ""))
    expect(page.locator("#workspace")).to_have_attribute("data-transcript", skipped or "")
    again = page.locator("#workspace fieldset.question").first
    expect(again.locator("input:checked")).to_have_value(key)
    expect(page.locator("#workspace fieldset.question input:checked")).to_have_count(1)
    context.close()
