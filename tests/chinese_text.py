"""What of a page rendered in the Chinese interface is still English.

A page passes when, once its data (names, transcripts, codes the test passes in) are taken out,
no run of three or more English words is left in its text or in the attributes people read
(title, aria-label, placeholder, alt, data-confirm).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from django.test import Client

# Three words or more, apart by spaces (codes such as ``id,query,label`` are not sentences).
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[,;:]?[ \t\u00a0]+[A-Za-z][A-Za-z'’-]*){2,}")
READ_ATTRIBUTES = re.compile(r'\b(?:title|aria-label|placeholder|alt|data-confirm)="([^"]*)"')
# Names and codes that stay as they are in every language.
PROPER_NAMES = (
    "Krippendorff",
    "Calderon, Reichart and Dror",
    "Pearson r",
    "Spearman ρ",
    "Kendall τ",
    "CSV",
    "Excel",
)


def readable_text(page: str) -> str:
    """The text and the read attributes of an HTML page, without its scripts and styles."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    attributes = READ_ATTRIBUTES.findall(page)
    text = re.sub(r"<[^>]+>", "\n", page)
    return html.unescape("\n".join([text, *attributes]))


def english_runs(page: str, data: Iterable[str] = ()) -> list[str]:
    """Runs of three or more English words left in ``page`` once ``data`` is taken out."""
    text = readable_text(page)
    for known in sorted({*data, *PROPER_NAMES}, key=len, reverse=True):
        if known:
            text = text.replace(known, " ")
    return sorted({match.group(0) for match in ENGLISH_RUN.finditer(text)})


def chinese_page(client: Client, url: str) -> str:
    """``url`` rendered in the Chinese interface (the page must answer 200)."""
    client.cookies["django_language"] = "zh-hans"
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()
