"""Every page each role can reach, in both languages, in a real browser.

At 390 px: no horizontal overflow, no console error, a plain window title, no stray debug text,
and in the Chinese interface none of the catalog's English sentences and no visible word of the
interface in English (the demo's own data and codes aside). At 1280 px, in English: axe-core (a
test asset in testing/axe-core/, never served by the site; the test answers the browser's
request for it) finds no serious or critical violation, in the light theme and, for contrast,
in a browser context whose colour scheme is dark, on each page once, with the first role that
reaches it. Screenshots of the main pages at both widths go to ``test-artefacts/screenshots/``
(ignored by git; pytest-playwright empties test-results/). The whole crawl takes at most three
minutes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Browser, BrowserContext, Page

from tests.chinese_text import KnownData, english_words_in
from tests.e2e.conftest import DEMO_PASSWORD, SHOTS
from tests.po_catalog import read_catalog

pytestmark = pytest.mark.e2e

AXE = Path(settings.BASE_DIR) / "testing" / "axe-core" / "axe.min.js"
# Where the browser asks for it; the site serves nothing there, the test answers instead.
AXE_ADDRESS = "/__test__/axe.min.js"
ROLES = ("anonymous", "judge1", "annotator1", "coordinator", "team1")
# The whole crawl is meant to take at most this long, in seconds. Its time is written to
# crawl-problems.txt beside the screenshots, not asserted: a loaded machine is not a failure.
BUDGET = 180
LANGUAGES = ("en", "zh-hans")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# Screenshots of these pages, at both widths.
MAIN_PAGES = {
    "home",
    "login",
    "liveeval:chat",
    "liveeval:leaderboard",
    "liveeval:campaign_detail",
    "annotation:item",
    "annotation:dashboard",
    "annotation_report:page",
    "concept:scorecard",
}
# Each visible text node and read attribute, outside code (for the word check).
VISIBLE_TEXT = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, parent = node.parentElement;
    if (!node.textContent.trim() || !parent) continue;
    if (parent.closest("code, pre, kbd, samp, script, style, template")) continue;
    if (parent.getClientRects().length) found.push(node.textContent);
  }
  for (const element of document.querySelectorAll("[title], [aria-label], [placeholder], [alt]"))
    for (const name of ["title", "aria-label", "placeholder", "alt"])
      if ((element.getAttribute(name) || "").trim()) found.push(element.getAttribute(name));
  return found;
}"""
DEBUG_TEXT = re.compile(r"\{\{|\{%|Traceback|\[object Object\]|\bundefined\b|\bNaN\b")


@pytest.fixture(scope="module")
def listing(page_listing: dict[str, Any]) -> dict[str, Any]:
    listed = page_listing
    assert not listed["missing"], (
        "URL patterns with arguments but no instance to crawl; register them in "
        f"tests/e2e/page_instances.py: {listed['missing']}"
    )
    return listed


@pytest.fixture(scope="module")
def pages(listing: dict[str, Any]) -> dict[str, str]:
    return dict(listing["pages"])


@pytest.fixture(scope="module")
def demo_data(listing: dict[str, Any]) -> KnownData:
    """The demo's own texts (names, usernames, transcripts), which stay as they are."""
    return KnownData(listing["data"])


@pytest.fixture(scope="module")
def english_sentences() -> list[str]:
    """Interface sentences that must not show through in the Chinese interface."""
    return sorted(
        {
            entry.msgid
            for entry in read_catalog()
            if len(entry.msgid.split()) >= 3
            and not re.search(r"[%{}<>]", entry.msgid)
            and entry.msgid not in entry.msgstr
        }
    )


def session(
    browser: Browser, base_url: str, role: str, lang: str, **options: Any
) -> BrowserContext:
    context = browser.new_context(**options)
    host = base_url.split("//", 1)[1].split(":")[0]
    context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": lang, "domain": host, "path": "/"}]
    )
    if role != "anonymous":
        page = context.new_page()
        page.goto(f"{base_url}/accounts/login/")
        page.fill("#id_username", role)
        page.fill("#id_password", DEMO_PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{base_url}/")
        # The language is remembered per person: choose it as they would, so that an earlier
        # choice of theirs does not decide the crawl's language.
        if page.locator("#language-select").input_value() != lang:
            with page.expect_navigation():
                page.select_option("#language-select", lang)
        page.close()
    return context


def visit(page: Page, base_url: str, path: str) -> bool:
    """Open the page; False when this role may not see it (refused or sent to log in)."""
    response = page.goto(base_url + path, wait_until="load")
    assert response is not None
    login = "/accounts/login/"
    if response.status in (403, 404) or (login in page.url and not path.startswith(login)):
        return False
    if response.status != 200:
        FAILED.append(f"{path}: status {response.status}")
        return False
    return True


def shot_name(role: str, lang: str, name: str, width: int) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS / f"{name.replace(':', '-')}.{role}.{lang}.{width}.png"


def crawl_phone(
    browser: Browser,
    base_url: str,
    role: str,
    lang: str,
    pages: dict[str, str],
    sentences: list[str],
    data: KnownData,
) -> Iterator[str]:
    """Problems on every page the role reaches at 390 px; records which pages it reached.

    The first language tries every page; the second only those the role reached in the first.
    """
    reached = REACHED.setdefault(role, set())
    first = lang == LANGUAGES[0]
    context = session(browser, base_url, role, lang, viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    for name, path in pages.items():
        errors.clear()
        if not first and name not in reached:
            continue
        if not visit(page, base_url, path):
            continue
        reached.add(name)
        where = f"{role} {lang} {path}"
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width[0] > width[1]:
            yield f"{where}: {width[0]} px wide at {width[1]} px"
        if errors:
            yield f"{where}: console errors {errors}"
        title = page.title()
        if "<" in title or not title.strip():
            yield f"{where}: the window's title is not plain text: {title[:80]!r}"
        text = page.inner_text("body")
        if DEBUG_TEXT.search(text):
            yield f"{where}: debug text {DEBUG_TEXT.search(text).group(0)!r}"  # type: ignore[union-attr]
        if lang == "zh-hans":
            shown = [sentence for sentence in sentences if sentence in text]
            if shown:
                yield f"{where}: English in the Chinese interface {shown}"
            words = english_words_in(page.evaluate(VISIBLE_TEXT), data)
            if words:
                yield f"{where}: English words in the Chinese interface {words}"
        if name in MAIN_PAGES:
            page.screenshot(path=shot_name(role, lang, name, 390), full_page=True)
    context.close()


REACHED: dict[str, set[str]] = {}
FAILED: list[str] = []
AXE_COUNTS: dict[str, int] = {}


def serious(violations: list[dict[str, Any]]) -> list[str]:
    return [
        f"{violation['id']} ({violation['impact']}): {len(violation['nodes'])} × "
        f"{violation['nodes'][0]['target']}"
        for violation in violations
        if violation["impact"] in ("serious", "critical")
    ]


def crawl_axe(browser: Browser, base_url: str, role: str, pages: dict[str, str]) -> Iterator[str]:
    """axe on every page the role reached that no role before it had, at 1280 px in English,
    light and dark."""
    todo = {name: path for name, path in pages.items() if name in REACHED[role] - AXED}
    if not todo:
        return
    context = session(browser, base_url, role, "en", viewport=DESKTOP)
    dark = session(browser, base_url, role, "en", viewport=DESKTOP, color_scheme="dark")
    for each in (context, dark):
        # The page's policy allows scripts from the site only: the browser fetches axe from
        # the site's address, and the test answers that request with the file.
        each.route(f"{base_url}{AXE_ADDRESS}", lambda route: route.fulfill(path=AXE))
    page = context.new_page()
    dark_page = dark.new_page()
    for name, path in todo.items():
        if not visit(page, base_url, path):
            continue
        AXED.add(name)
        if name in MAIN_PAGES:
            page.screenshot(path=shot_name(role, "en", name, 1280), full_page=True)
        yield from run_axe(page, base_url, "light", "{}", role, path)
        # The dark theme, in a context of its own that prefers it, checked for contrast.
        dark_page.goto(base_url + path, wait_until="load")
        if name in MAIN_PAGES:
            dark_page.screenshot(path=shot_name(role, "en-dark", name, 1280), full_page=True)
        yield from run_axe(dark_page, base_url, "dark", "{runOnly: ['color-contrast']}", role, path)
    context.close()
    dark.close()


def run_axe(
    page: Page, base_url: str, scheme: str, options: str, role: str, path: str
) -> Iterator[str]:
    page.add_script_tag(url=f"{base_url}{AXE_ADDRESS}")
    found = serious(page.evaluate(f"axe.run(document, {options}).then(r => r.violations)"))
    AXE_COUNTS[scheme] = AXE_COUNTS.get(scheme, 0) + len(found)
    for problem in found:
        yield f"axe {scheme} {role} {path}: {problem}"


AXED: set[str] = set()


# Five roles, two languages, two widths and both colour schemes: on a loaded machine with the other
# pytest-xdist worker busy it can pass the suite's default 300 s limit without hanging.
@pytest.mark.timeout(600)
def test_every_page_of_every_role_in_both_languages(
    browser: Browser,
    base_url: str,
    pages: dict[str, str],
    english_sentences: list[str],
    demo_data: KnownData,
) -> None:
    started = time.monotonic()
    problems: list[str] = []
    for role in ROLES:
        for lang in LANGUAGES:
            problems += crawl_phone(
                browser, base_url, role, lang, pages, english_sentences, demo_data
            )
        problems += crawl_axe(browser, base_url, role, pages)
    took = time.monotonic() - started
    reached = set().union(*REACHED.values())
    summary = (
        f"axe serious/critical: {AXE_COUNTS}; pages reached: {len(reached)}/{len(pages)}; "
        f"by role: { {role: len(names) for role, names in REACHED.items()} }; "
        f"{took:.0f} s (meant to take at most {BUDGET} s)"
    )
    SHOTS.parent.mkdir(parents=True, exist_ok=True)
    (SHOTS.parent / "crawl-problems.txt").write_text("\n".join([summary, *FAILED, *problems]))
    assert not FAILED, FAILED
    unreached = sorted(set(pages) - reached)
    assert not unreached, f"no role could open these pages: {unreached}"
    # Each role reaches pages of its own: a participant its team's track and submissions.
    assert {"intent:track", "intent:submission"} <= REACHED["team1"], REACHED["team1"]
    assert not problems, "\n".join(problems)
