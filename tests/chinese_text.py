"""What of a page rendered in the Chinese interface is still English.

A page passes when, once its data (names, transcripts, codes the test passes in) are taken out,
no run of three or more English words is left in its text or in the attributes people read
(title, aria-label, placeholder, alt, data-confirm), and no single word of the interface either:
`english_words` finds the words of the catalog's English ids (those no translation keeps, such
as "Systems" or "Persona") in any text outside code, URLs, numbers and codes such as ``judge1``
or ``book_flight``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from functools import cache

from django.test import Client

from tests.po_catalog import read_catalog

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


WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
# Placeholders and markup inside a msgid, which are no words of it.
NOT_WORDS = re.compile(r"%\(\w+\)[a-z]|%[a-z]|\{\{.*?\}\}|\{%.*?%\}|<[^>]+>|&\w+;")
# Text people read as code, not as the interface's words.
CODE_ELEMENTS = re.compile(r"<(code|pre|kbd|samp|script|style)\b.*?</\1>", flags=re.S)
# A token with a digit, an underscore or the marks of a URL, address or formula is a code.
CODE_TOKEN = re.compile(r"[\d_@/=.#\\]|://")


@cache
def catalog_words() -> frozenset[str]:
    """The English words of the catalog's ids that no translation keeps as they are."""

    def words(text: str) -> set[str]:
        return set(WORD.findall(NOT_WORDS.sub(" ", text)))

    entries = read_catalog()
    kept: set[str] = set()
    found: set[str] = set()
    for entry in entries:
        for text in entry.msgstr:
            kept |= words(text)
        found |= words(entry.msgid) | words(entry.msgid_plural)
    return frozenset(word for word in found - kept if len(word) > 1)


def text_nodes(page: str) -> list[str]:
    """Each text node and read attribute of a page, without scripts, styles and code."""
    page = CODE_ELEMENTS.sub(" ", page)
    attributes = READ_ATTRIBUTES.findall(page)
    nodes = re.split(r"<[^>]+>", page)
    return [html.unescape(node) for node in [*nodes, *attributes] if node.strip()]


class KnownData:
    """Texts that stay as they are (the data a page shows, names), indexed by the interface words
    they hold, so that a page's check looks only at the few that could explain a word."""

    def __init__(self, data: Iterable[str] = ()) -> None:
        words = catalog_words()
        self.by_word: dict[str, list[str]] = {}
        for item in sorted({*data, *PROPER_NAMES}, key=len, reverse=True):
            for word in set(WORD.findall(item)) & words:
                self.by_word.setdefault(word, []).append(item)

    def taken_out(self, node: str, words: Iterable[str]) -> str:
        """``node`` without the known texts that hold any of ``words``, longest first."""
        items = {item for word in words for item in self.by_word.get(word, ()) if item in node}
        for item in sorted(items, key=len, reverse=True):
            # Data is taken out whole, never out of a longer word ("en" out of "Open").
            node = re.sub(rf"(?<![A-Za-z0-9]){re.escape(item)}(?![A-Za-z0-9])", " ", node)
        return node


def english_words(page: str, data: Iterable[str] = ()) -> list[str]:
    """The text nodes of ``page`` holding a word of the interface in English, once ``data`` and
    codes are taken out; each is given as ``word: node``."""
    return english_words_in(text_nodes(page), KnownData(data))


def english_words_in(nodes: Iterable[str], known: KnownData) -> list[str]:
    """`english_words` of text nodes already taken from a page (by a browser, say)."""
    found: set[str] = set()
    words = catalog_words()
    for node in nodes:
        present = {word for word in WORD.findall(node) if word in words}
        if not present:
            continue
        text = known.taken_out(node, present)
        for token in text.split():
            if CODE_TOKEN.search(token):
                continue
            for word in WORD.findall(token):
                if word in words:
                    found.add(f"{word}: {' '.join(node.split())[:80]}")
    return sorted(found)


def chinese_page(client: Client, url: str) -> str:
    """``url`` rendered in the Chinese interface (the page must answer 200)."""
    client.cookies["django_language"] = "zh-hans"
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()
