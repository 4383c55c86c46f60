"""Item mentions: the names of items (films, books) a system says in a turn.

A turn names items in its ``items`` and ``entity`` lists, in double quotes (straight or
curly), and as ``Title (Year)``. ``QUOTED_TITLE`` is the one pattern of a quoted title.
``split_year`` and ``title_key`` give the form in which a mention is compared with catalog
names. The exact rules are written out in ``docs/concept.md``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_TITLE_WORDS = 12

SOURCE_LISTED = "listed"
SOURCE_QUOTED = "quoted"
SOURCE_TITLE_YEAR = "title_year"

# A year a title may carry: 1800–2099.
YEAR = r"(1[89]\d\d|20\d\d)"
# A quoted title: straight double quotes, or curly ones; group 1 or 2 holds the title.
QUOTED_TITLE = re.compile(r"\"([^\"\n]{1,120})\"|“([^“”\n]{1,120})”")


def quoted_titles(text: str) -> list[str]:
    """The quoted spans of ``text`` (straight or curly double quotes), in order."""
    return [match[1] if match[1] is not None else match[2] for match in QUOTED_TITLE.finditer(text)]


_NAME_YEAR = re.compile(r"^(?P<title>.*?)\s*\(" + YEAR + r"\)\s*$")
_YEAR_IN_PARENS = re.compile(r"\(" + YEAR + r"\)")
_YEAR_AFTER_QUOTE = re.compile(r"\s*\(" + YEAR + r"\)")
_APOSTROPHES = re.compile(r"['’‘`]")
_TRAILING_ARTICLE = re.compile(r",\s*(the|a|an)\s*$")
_NOT_ALPHANUMERIC = re.compile(r"[^0-9a-z]+")
_ARTICLES = frozenset({"the", "a", "an"})
# Lower-case words that may sit inside a title ("The Silence of the Lambs").
_TITLE_CONNECTORS = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "and",
        "in",
        "on",
        "at",
        "to",
        "for",
        "with",
        "from",
        "by",
        "or",
        "vs",
        "vs.",
        "de",
        "la",
        "le",
        "du",
        "von",
        "van",
    }
)
_TITLE_SYMBOLS = frozenset({"&", "-", "–", "—", ":"})
_TOKEN_PUNCTUATION = "\"'“”‘’()[]{}*_,.;:!?"
_SENTENCE_BREAK = (".", "!", "?", ",", ";")


def text_values(value: Any) -> list[str]:
    """The non-blank strings of a list (such as a turn's ``items``); anything else is none."""
    if not value:
        return []
    return [item for item in value if isinstance(item, str) and item.strip()]


@functools.lru_cache(maxsize=65536)
def split_year(name: str) -> tuple[str, int | None]:
    """``"Airplane! (1980)"`` → ``("Airplane!", 1980)``; a name without a year keeps None."""
    match = _NAME_YEAR.match(name)
    if match is None:
        return name.strip(), None
    return match["title"].strip(), int(match[2])


@functools.lru_cache(maxsize=65536)
def title_key(title: str) -> str:
    """The form two titles are compared in: accents, case, apostrophes, punctuation and a
    leading or trailing article do not count, and ``&`` reads as ``and``."""
    text = title
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(char for char in text if not unicodedata.combining(char))
    text = text.casefold()
    text = _APOSTROPHES.sub("", text).replace("&", " and ")
    text = _TRAILING_ARTICLE.sub("", text)
    words = _NOT_ALPHANUMERIC.sub(" ", text).split()
    if len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(words)


@dataclass(frozen=True)
class ItemMention:
    """An item name found in a system turn: in its item list, in quotes, or as Title (Year)."""

    name: str
    year: int | None
    source: str

    def candidates(self) -> list[str]:
        """Names to look up, longest first: a Title (Year) run may start with words that are
        not part of the title ("Try Airplane! (1980)"), so its shorter tails are tried too."""
        if self.source != SOURCE_TITLE_YEAR:
            return [self.name]
        words = self.name.split()
        return [
            " ".join(words[start:])
            for start in range(len(words))
            if start == 0 or not words[start].islower()
        ]

    def shown_name(self) -> str:
        """The name to count an unmatched mention under: a Title (Year) run loses any words up
        to a sentence break ("Yes, Foo" → "Foo")."""
        if self.source != SOURCE_TITLE_YEAR:
            return self.name
        words = self.name.split()
        start = 0
        for index, word in enumerate(words[:-1]):
            if word.endswith(_SENTENCE_BREAK):
                start = index + 1
        return " ".join(words[start:])


def _title_token(token: str) -> bool:
    core = token.strip(_TOKEN_PUNCTUATION)
    if not core:
        return token in _TITLE_SYMBOLS
    if core in _TITLE_CONNECTORS:
        return True
    return core[0].isupper() or core[0].isdigit()


def _quoted_title(content: str) -> str | None:
    title = content.strip().rstrip(".,;:").strip()
    core = title.lstrip(_TOKEN_PUNCTUATION)
    if not core or not (core[0].isupper() or core[0].isdigit()):
        return None
    if len(title.split()) > MAX_TITLE_WORDS:
        return None
    return title


@functools.lru_cache(maxsize=65536)
def mentions_in_text(text: str) -> tuple[ItemMention, ...]:
    """Item names in free text: quoted titles (straight or curly double quotes) and
    ``Title (Year)`` patterns; see ``docs/concept.md`` for the exact rules."""
    mentions: list[ItemMention] = []
    if "(" not in text and '"' not in text and "“" not in text:
        return ()
    outside: list[str] = []
    last = 0
    for match in QUOTED_TITLE.finditer(text):
        outside.append(text[last : match.start()])
        last = match.end()
        title = _quoted_title(match[1] if match[1] is not None else match[2])
        if title is None:
            continue
        name, year = split_year(title)
        if year is None:
            following = _YEAR_AFTER_QUOTE.match(text, match.end())
            if following is not None:
                year = int(following[1])
                last = following.end()
        mentions.append(ItemMention(name, year, SOURCE_QUOTED))
    outside.append(text[last:])
    # Quoted spans are cut out so that a quoted "Title (Year)" is not found twice.
    rest = "\n".join(outside)
    start = 0
    for match in _YEAR_IN_PARENS.finditer(rest):
        # Twelve words fit in far fewer characters than this; long texts need not be split.
        window = max(start, match.start() - 40 * MAX_TITLE_WORDS)
        segment = rest[window : match.start()].rsplit("\n", 1)[-1]
        start = match.end()
        tokens = segment.split()
        run: list[str] = []
        for token in reversed(tokens[-MAX_TITLE_WORDS:]):
            if not _title_token(token):
                break
            run.insert(0, token)
        while run and (run[0] in _TITLE_SYMBOLS or run[0].strip(_TOKEN_PUNCTUATION).islower()):
            run.pop(0)
        if run:
            run[0] = run[0].lstrip(_TOKEN_PUNCTUATION)
            mentions.append(ItemMention(" ".join(run), int(match[1]), SOURCE_TITLE_YEAR))
    return tuple(mentions)


def mentions_in_turn(turn: Mapping[str, Any]) -> list[ItemMention]:
    """The item names of one turn: its ``items`` and ``entity`` lists, then its text."""
    listed = dict.fromkeys(text_values(turn.get("items")) + text_values(turn.get("entity")))
    mentions = [ItemMention(*split_year(name), SOURCE_LISTED) for name in listed]
    return [*mentions, *mentions_in_text(str(turn.get("text") or ""))]
