"""Chart text reads in both themes: the agreement report, the CONCEPT scorecard, the fidelity
report and an intent submission's confusion matrix, each in a browser context that prefers the
light colour scheme and in one that prefers the dark one. No screenshot is compared: the page
reports each SVG text's computed fill and the colour behind it (the cell it sits on, or the
first opaque background around its figure), and every pair must reach WCAG's 4.5:1.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.conftest import SHOTS, log_in

pytestmark = pytest.mark.e2e

# Each SVG text that is shown: its fill, what lies behind it, and their contrast ratio.
CHART_TEXT = """() => {
  const rgb = colour => (colour.match(/[\\d.]+/g) || []).map(Number);
  const channel = v => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const ratio = (a, b) => {
    const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (light + 0.05) / (dark + 0.05);
  };
  const backdrop = element => {
    for (let node = element; node; node = node.parentElement) {
      const colour = rgb(getComputedStyle(node).backgroundColor);
      if (colour.length === 3 || (colour.length === 4 && colour[3] > 0)) return colour.slice(0, 3);
    }
    return rgb(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3);
  };
  const found = [];
  for (const text of document.querySelectorAll("svg text")) {
    if (!text.textContent.trim() || !text.getClientRects().length) continue;
    text.scrollIntoView({block: "center", inline: "center"});
    const box = text.getBoundingClientRect();
    const under = document.elementsFromPoint(box.x + box.width / 2, box.y + box.height / 2)
      .find(element => element.tagName === "rect" && getComputedStyle(element).fill !== "none");
    const behind = under
      ? rgb(getComputedStyle(under).fill).slice(0, 3)
      : backdrop(text.closest("svg"));
    const fill = rgb(getComputedStyle(text).fill).slice(0, 3);
    found.push({text: text.textContent.trim(), fill, behind, ratio: ratio(fill, behind),
                luminance: luminance(fill), onCell: Boolean(under)});
  }
  return found;
}"""
CHARTS = "figure.plot, svg.ability-chart"
PAGES = ("annotation_report:page", "concept:scorecard", "fidelity:report", "intent:submission")


@pytest.fixture(scope="module")
def pages(page_listing: dict[str, Any]) -> dict[str, str]:
    return dict(page_listing["pages"])


def computed_report(page: Page, base_url: str, path: str) -> None:
    """Open the agreement report, computing it first when it has not been."""
    page.goto(base_url + path)
    if page.locator("figure.plot").count():
        return
    page.locator("#compute-form button").first.click()
    for _ in range(90):
        page.goto(base_url + path)
        if page.locator("figure.plot").count():
            return
        page.wait_for_timeout(1000)
    page.screenshot(path=SHOTS / "chart-themes-report-not-computed.png", full_page=True)
    raise AssertionError("the agreement report was not computed within 90 s")


Scheme = Literal["light", "dark"]


def slug(path: str) -> str:
    return path.strip("/").replace("/", "-")


def chart_texts(browser: Browser, base_url: str, path: str, scheme: Scheme) -> list[dict[str, Any]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    log_in(page, base_url, "coordinator")
    page.goto(base_url + path, wait_until="load")
    found: list[dict[str, Any]] = page.evaluate(CHART_TEXT)
    # A look at the first chart of the page, at 1280 and at 390 px, kept with the other
    # screenshots (not compared: the contrast above is the check).
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator(CHARTS).first.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / f"chart-{slug(path)}.{scheme}.{width}.png")
    context.close()
    return found


def test_chart_text_contrasts_with_its_background_in_both_themes(
    browser: Browser, base_url: str, pages: dict[str, str]
) -> None:
    context = browser.new_context()
    page = context.new_page()
    log_in(page, base_url, "coordinator")
    computed_report(page, base_url, pages["annotation_report:page"])
    context.close()
    problems = []
    for name in PAGES:
        light = chart_texts(browser, base_url, pages[name], "light")
        dark = chart_texts(browser, base_url, pages[name], "dark")
        assert light and len(light) == len(dark), (name, len(light), len(dark))
        for shown, texts in (("light", light), ("dark", dark)):
            problems += [
                f"{name} {shown}: {text['text']!r} {text['fill']} on {text['behind']}: "
                f"{text['ratio']:.2f}"
                for text in texts
                if text["ratio"] < 4.5
            ]
        # The labels around a chart (not on a cell) follow the theme: dark text on the light
        # page, light text on the dark one.
        assert all(text["luminance"] < 0.2 for text in light if not text["onCell"]), name
        assert all(text["luminance"] > 0.4 for text in dark if not text["onCell"]), name
    assert not problems, "\n".join(problems)
