"""The CONCEPT scorecard: quality, sincerity, rubric abilities, identity and coordination.

Plain functions over plain transcript rows: a mapping, or any object with attributes (such as
an ``annotation.models.Transcript``), holding the fields the importers store (``external_id``,
``system``, ``dataset``, ``persona_emotion``, ``persona_age_group``, ``preferences``,
``turns``, ``accepted``, ``accepted_items``, ``accepted_turn``, ``metadata``). Nothing here
touches the database, so the report pages, commands and tests share one implementation.

Every formula, denominator and matching rule is written out in ``docs/concept.md``.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

ACCEPTANCE_MARK = "[END]"
SR_CUTOFFS = (3, 5, 10)
RUBRIC_DIMENSIONS = (
    "manner",
    "quality",
    "relevance",
    "social_awareness",
    "persuasiveness",
    "human_likeness",
    "overall",
    "user_satisfaction",
)
# The binary rubric question "does the accepted item match the stated preferences?" (1 = yes).
DECEPTION_DIMENSION = "acceptance_follows_preferences"
PERSONA_FIELDS = ("persona_emotion", "persona_age_group")
# Grouping by any of these names puts a transcript in one group per stated preference.
PREFERENCE_GROUPINGS = frozenset({"preference", "preferences", "attribute", "genre"})
# Reliability is left out: it needs paraphrased pairs of user turns, which transcripts lack.
COORDINATED_ABILITIES = ("quality", "identity", "cooperation", "social_awareness")
# Which measures each composite is made of, to show beside it; ``{source}`` is ``human`` or
# ``llm_<evaluator>``.
COMPONENTS: Mapping[str, tuple[str, ...]] = {
    "quality_score": ("acceptance_rate",),
    "sincerity_score": ("deceptive_ratio_catalog", "nonexistent_item_ratio"),
    "identity_score_{source}": ("{source}_persuasiveness", "deceptive_ratio_catalog"),
    "cooperation_score_{source}": (
        "{source}_manner",
        "{source}_quality",
        "{source}_relevance",
        "sincerity_score",
    ),
    "social_awareness_score_{source}": ("{source}_social_awareness",),
    "coordination_score_{source}": ("coordination_{source}",),
}
YEAR_TOLERANCE = 1
MAX_TITLE_WORDS = 12
_RESOLVED_LIMIT = 100_000

SOURCE_LISTED = "listed"
SOURCE_QUOTED = "quoted"
SOURCE_TITLE_YEAR = "title_year"

_YEAR = r"(1[89]\d\d|20\d\d)"
_NAME_YEAR = re.compile(r"^(?P<title>.*?)\s*\(" + _YEAR + r"\)\s*$")
_YEAR_IN_PARENS = re.compile(r"\(" + _YEAR + r"\)")
_YEAR_AFTER_QUOTE = re.compile(r"\s*\(" + _YEAR + r"\)")
_QUOTED = re.compile(r"\"([^\"\n]{1,120})\"|“([^“”\n]{1,120})”")
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


# Reading rows ---------------------------------------------------------------------------------


def _get(row: Any, name: str) -> Any:
    # dict first: the abstract Mapping check is slow enough to show on 6,720 transcripts.
    if isinstance(row, dict | Mapping):
        return row.get(name)
    return getattr(row, name, None)


def _transcript_id(row: Any) -> str:
    found = _get(row, "external_id")
    if found is None:
        found = _get(row, "id")
    return "" if found is None else str(found)


def _turns(row: Any) -> list[dict[str, Any]]:
    # Turns are stored as JSON, so each one is a dict.
    turns = _get(row, "turns")
    return turns if isinstance(turns, list) else []


def _strings(value: Any) -> list[str]:
    if not value:
        return []
    return [item for item in value if isinstance(item, str) and item.strip()]


def group_value(row: Any, name: str) -> str | None:
    """The value of column ``name`` of a transcript, looked up in its metadata if need be."""
    if name.startswith("metadata."):
        name, value = name.removeprefix("metadata."), None
    else:
        value = _get(row, name)
    if value is None:
        metadata = _get(row, "metadata")
        if isinstance(metadata, Mapping):
            value = metadata.get(name)
    return None if value is None else str(value)


# Acceptance and success ---------------------------------------------------------------------


def _accepting_index(turns: Sequence[Mapping[str, Any]]) -> int | None:
    for index, turn in enumerate(turns):
        if turn.get("role") == "user" and ACCEPTANCE_MARK in str(turn.get("text") or ""):
            return index
    return None


def is_accepted(row: Any) -> bool:
    """Whether the user accepted: the stored outcome, else a user turn containing ``[END]``."""
    accepted = _get(row, "accepted")
    if accepted is not None:
        return bool(accepted)
    return _accepting_index(_turns(row)) is not None


def turns_to_accept(row: Any) -> int | None:
    """User turns from the first one up to and including the accepting turn; None if unknown."""
    if not is_accepted(row):
        return None
    turns = _turns(row)
    accepted_turn = _get(row, "accepted_turn")
    if isinstance(accepted_turn, int) and 1 <= accepted_turn <= len(turns):
        end = accepted_turn
    else:
        index = _accepting_index(turns)
        if index is None:
            return None
        end = index + 1
    count = sum(1 for turn in turns[:end] if turn.get("role") == "user")
    return count or None


def _success_flag(turn: Mapping[str, Any], module: str) -> bool | None:
    if module == "rec":
        value = turn.get("rec_success_rec")
    else:
        value = turn.get("rec_success_dialogue", turn.get("success"))
    return None if value is None else bool(value)


def first_success(row: Any, module: str) -> tuple[int | None, bool]:
    """The system turn number (counting system turns only, from 1) of the first successful
    recommendation, and whether any system turn carries the flag at all.

    ``module`` is ``"rec"`` (the recommender module, ``rec_success_rec``) or ``"dialogue"``
    (``rec_success_dialogue``, or the JSONL ``success`` flag).
    """
    if module not in ("rec", "dialogue"):
        raise ValueError(f"module must be 'rec' or 'dialogue', not {module!r}")
    flagged = False
    number = 0
    for turn in _turns(row):
        if turn.get("role") != "system":
            continue
        number += 1
        flag = _success_flag(turn, module)
        if flag is None:
            continue
        flagged = True
        if flag:
            return number, True
    return None, flagged


# Item names -----------------------------------------------------------------------------------


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


def attribute_key(attribute: str) -> str:
    """An attribute or preference as compared: case and punctuation do not count, and a plural
    is its singular (``"comedies"`` = ``"Comedy"``)."""
    words = _NOT_ALPHANUMERIC.sub(" ", attribute.casefold()).split()
    singular = []
    for word in words:
        if len(word) > 4 and word.endswith("ies"):
            word = word[:-3] + "y"
        elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        singular.append(word)
    return " ".join(singular)


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
    for match in _QUOTED.finditer(text):
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
    listed = dict.fromkeys(_strings(turn.get("items")) + _strings(turn.get("entity")))
    mentions = [ItemMention(*split_year(name), SOURCE_LISTED) for name in listed]
    return [*mentions, *mentions_in_text(str(turn.get("text") or ""))]


def named_items(row: Any) -> list[ItemMention]:
    """Every item name the system says in a transcript (system turns only), in order."""
    return [
        mention
        for turn in _turns(row)
        if turn.get("role") == "system"
        for mention in mentions_in_turn(turn)
    ]


# Catalogs ---------------------------------------------------------------------------------------


class CatalogError(ValueError):
    """A catalog source row cannot be read."""


@dataclass(frozen=True)
class CatalogItem:
    """One item of a catalog. ``id`` is the id the systems use (Concept4CRS: the entity id)."""

    id: str
    name: str
    year: int | None = None
    attributes: tuple[str, ...] = ()


class Catalog:
    """The items a dataset knows, found by title, plus the names of its other entities
    (people, genres), which are not items and so never count as non-existent items."""

    def __init__(self, items: Iterable[CatalogItem], *, other_entities: Iterable[str] = ()) -> None:
        self._items: dict[str, CatalogItem] = {}
        self._by_title: dict[str, list[CatalogItem]] = {}
        for item in items:
            title, name_year = split_year(item.name)
            if item.year is None and name_year is not None:
                item = CatalogItem(item.id, item.name, name_year, item.attributes)
            self._items[item.id] = item
            self._by_title.setdefault(title_key(title), []).append(item)
        self._other_entities = {
            title_key(split_year(name)[0]) for name in other_entities
        } - self._by_title.keys()
        # The same few titles come up again and again across transcripts.
        self._resolved: dict[ItemMention, CatalogItem | None] = {}

    def __len__(self) -> int:
        return len(self._items)

    def item(self, item_id: str | int) -> CatalogItem | None:
        return self._items.get(str(item_id))

    def find(self, name: str, year: int | None = None) -> CatalogItem | None:
        """The item called ``name``: with a year, the same year is preferred, then one year
        apart, then an entry whose year the catalog does not know; more apart is no match."""
        candidates = self._by_title.get(title_key(name))
        if not candidates:
            return None
        if year is None:
            return candidates[0]
        ranked = []
        for candidate in candidates:
            if candidate.year is None:
                ranked.append((2, candidate))
            elif abs(candidate.year - year) <= YEAR_TOLERANCE:
                ranked.append((abs(candidate.year - year), candidate))
        return min(ranked, key=lambda pair: pair[0])[1] if ranked else None

    def resolve(self, mention: ItemMention) -> CatalogItem | None:
        """The item a mention names; a Title (Year) run may match on a shorter tail."""
        if mention in self._resolved:
            return self._resolved[mention]
        found = None
        for name in mention.candidates():
            found = self.find(name, mention.year)
            if found is not None:
                break
        if len(self._resolved) >= _RESOLVED_LIMIT:
            self._resolved.clear()
        self._resolved[mention] = found
        return found

    def is_other_entity(self, name: str) -> bool:
        return title_key(split_year(name)[0]) in self._other_entities


def _year(value: Any, where: str) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip()
    if not re.fullmatch(r"\d{4}", text):
        raise CatalogError(f"{where}: year {text!r} is not a four-digit year")
    return int(text)


def catalog_from_csv_rows(rows: Iterable[Mapping[str, str | None]]) -> Catalog:
    """A catalog from the rows of a CSV file with the columns ``id, name, year, attributes``
    (as ``csv.DictReader`` gives them); attributes are separated by ``|``, year may be empty."""
    items: list[CatalogItem] = []
    seen: set[str] = set()
    for number, row in enumerate(rows, start=1):
        where = f"row {number}"
        if "id" not in row or "name" not in row:
            raise CatalogError("the catalog needs the columns id, name, year, attributes")
        item_id = (row.get("id") or "").strip()
        name = (row.get("name") or "").strip()
        if not item_id:
            raise CatalogError(f"{where}: id is required")
        if not name:
            raise CatalogError(f"{where}: name is required")
        if item_id in seen:
            raise CatalogError(f"{where}: id {item_id!r} is repeated")
        seen.add(item_id)
        attributes = tuple(
            part.strip() for part in (row.get("attributes") or "").split("|") if part.strip()
        )
        items.append(CatalogItem(item_id, name, _year(row.get("year"), where), attributes))
    return Catalog(items)


def catalog_from_concept4crs(
    entity2id: Mapping[str, Any], id2info: Mapping[str, Mapping[str, Any]]
) -> Catalog:
    """A catalog from a Concept4CRS ``*_entity2id.json`` and ``*_id2info.json`` pair.

    Items are the ``id2info`` entries, joined by name to their entity id (the id ``rec_items``
    uses); an entry without an entity keeps ``info-<key>``. Entries sharing a name are one
    item with the union of their genres. Every other entity name (people, genres, years) is
    known but is not an item.
    """
    items: dict[str, CatalogItem] = {}
    for key, info in id2info.items():
        where = f"id2info[{key!r}]"
        name = info.get("name") if isinstance(info, Mapping) else None
        if not isinstance(name, str) or not name.strip():
            raise CatalogError(f"{where}: name is required")
        genres = tuple(genre for genre in info.get("genre") or () if isinstance(genre, str))
        entity = entity2id.get(name)
        item_id = f"info-{key}" if entity is None else str(entity)
        # The published files hold a few ancient years ("-500"); those items keep no year.
        year = split_year(name)[1]
        raw_year = str(info.get("year") or "").strip()
        if re.fullmatch(_YEAR, raw_year):
            year = int(raw_year)
        known = items.get(item_id)
        if known is not None:
            genres = tuple(dict.fromkeys(known.attributes + genres))
            year = known.year if known.year is not None else year
        items[item_id] = CatalogItem(item_id, name, year, genres)
    names = {item.name for item in items.values()}
    return Catalog(items.values(), other_entities=(n for n in entity2id if n not in names))


CatalogChoice: TypeAlias = Catalog | Mapping[str, Catalog] | None


def catalog_for(row: Any, catalog: CatalogChoice) -> tuple[Catalog | None, str | None]:
    """The catalog of a transcript's dataset, or None and the reason there is none."""
    if catalog is None:
        return None, "no item catalog was given"
    if isinstance(catalog, Catalog):
        return catalog, None
    dataset = group_value(row, "dataset") or ""
    found = catalog.get(dataset)
    if found is None:
        return None, f"no item catalog for dataset {dataset!r}"
    return found, None


# Sincerity ----------------------------------------------------------------------------------


def item_existence(row: Any, catalog: Catalog) -> dict[str, bool]:
    """The distinct items the system names, keyed by title, and whether each is in the
    catalog. Names of the catalog's other entities (people, genres) are left out."""
    found: dict[str, bool] = {}
    for mention in dict.fromkeys(named_items(row)):
        item = catalog.resolve(mention)
        if item is None:
            if catalog.is_other_entity(mention.name) or catalog.is_other_entity(
                mention.shown_name()
            ):
                continue
            key = title_key(mention.shown_name())
        else:
            key = title_key(split_year(item.name)[0])
        if key:
            found[key] = found.get(key, False) or item is not None
    return found


def deceptive_by_catalog(row: Any, catalog: Catalog) -> tuple[bool | None, str | None]:
    """Whether an accepted transcript's accepted items miss the stated preferences.

    An item matches when its catalog attributes include every stated preference; the
    transcript is deceptive when none of its accepted items that the catalog describes
    matches. Returns None and the reason when that cannot be judged.
    """
    if not is_accepted(row):
        return None, "not accepted"
    preferences = {attribute_key(p) for p in _strings(_get(row, "preferences"))}
    if not preferences:
        return None, "no stated preferences"
    accepted = _strings(_get(row, "accepted_items"))
    if not accepted:
        return None, "no accepted items recorded"
    described = [
        item
        for item in (catalog.find(*split_year(name)) for name in accepted)
        if item is not None and item.attributes
    ]
    if not described:
        return None, "no accepted item is in the catalog with attributes"
    matches = any(preferences <= {attribute_key(a) for a in item.attributes} for item in described)
    return not matches, None


# Per-transcript facts ---------------------------------------------------------------------------


@dataclass
class TranscriptFacts:
    """What the scorecard needs from one transcript, worked out once."""

    id: str
    accepted: bool
    outcome_recorded: bool
    turns_to_accept: int | None
    first_success: dict[str, int | None]
    success_flagged: dict[str, bool]
    items: dict[str, bool] | None
    catalog_reason: str | None
    deceptive: bool | None
    deceptive_reason: str | None
    personas: dict[str, str] = field(default_factory=dict)


def transcript_facts(row: Any, catalog: CatalogChoice = None) -> TranscriptFacts:
    """Everything the group measures need from one transcript, in one pass over it."""
    chosen, reason = catalog_for(row, catalog)
    deceptive: bool | None = None
    deceptive_reason = reason
    items = None
    if chosen is not None:
        items = item_existence(row, chosen)
        deceptive, deceptive_reason = deceptive_by_catalog(row, chosen)
    firsts: dict[str, int | None] = {}
    flagged: dict[str, bool] = {}
    for module in ("rec", "dialogue"):
        firsts[module], flagged[module] = first_success(row, module)
    return TranscriptFacts(
        id=_transcript_id(row),
        accepted=is_accepted(row),
        outcome_recorded=_get(row, "accepted") is not None,
        turns_to_accept=turns_to_accept(row),
        first_success=firsts,
        success_flagged=flagged,
        items=items,
        catalog_reason=reason,
        deceptive=deceptive,
        deceptive_reason=deceptive_reason,
        personas={name: group_value(row, name) or "" for name in PERSONA_FIELDS},
    )


# Measures over a group --------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if number == number and abs(number) != float("inf") else None


@dataclass(frozen=True)
class RaterSource:
    """Rubric scores from one kind of rater: ``human``, or ``llm_<evaluator>``."""

    name: str
    scores: Mapping[str, Mapping[str, float]]


def rater_sources(
    human_scores: Mapping[str, Mapping[str, float]] | None,
    llm_scores: Mapping[str, Mapping[str, Mapping[str, float]]] | None,
) -> list[RaterSource]:
    sources = [] if human_scores is None else [RaterSource("human", human_scores)]
    for evaluator in sorted(llm_scores or {}):
        sources.append(RaterSource(f"llm_{evaluator}", (llm_scores or {})[evaluator]))
    return sources


def _quality_measures(facts: Sequence[TranscriptFacts], card: dict[str, Any]) -> None:
    n = len(facts)
    notes: dict[str, str] = card["notes"]
    accepted = [f for f in facts if f.accepted]
    card["accepted"] = len(accepted)
    card["acceptance_rate"] = len(accepted) / n
    missing = sum(1 for f in facts if not f.outcome_recorded)
    if missing:
        notes["acceptance_rate"] = (
            f"{missing} transcript(s) have no recorded outcome; a user turn with "
            f"{ACCEPTANCE_MARK} decided them"
        )
    turns = [f.turns_to_accept for f in accepted if f.turns_to_accept is not None]
    card["avg_turns_to_accept"] = _mean(turns)
    if not accepted:
        notes["avg_turns_to_accept"] = "no transcript in the group was accepted"
    elif not turns:
        notes["avg_turns_to_accept"] = "no accepted transcript records its accepting turn"
    elif len(turns) < len(accepted):
        notes["avg_turns_to_accept"] = (
            f"{len(accepted) - len(turns)} accepted transcript(s) without an accepting turn "
            "are left out"
        )
    for module, flag_name in (("rec", "rec_success_rec"), ("dialogue", "rec_success_dialogue")):
        flagged = any(f.success_flagged[module] for f in facts)
        unflagged = sum(1 for f in facts if not f.success_flagged[module])
        firsts = [f.first_success[module] for f in facts]
        for k in SR_CUTOFFS:
            key = f"sr_{module}@{k}"
            if not flagged:
                card[key] = None
                shown = flag_name if module == "rec" else f"{flag_name} or success"
                notes[key] = f"no system turn in the group carries a {shown} flag"
                continue
            card[key] = sum(1 for first in firsts if first is not None and first <= k) / n
            if unflagged:
                notes[key] = f"{unflagged} transcript(s) carry no flag and count as unsuccessful"


def _sincerity_measures(facts: Sequence[TranscriptFacts], card: dict[str, Any]) -> None:
    notes: dict[str, str] = card["notes"]
    checked = [f for f in facts if f.items is not None]
    reasons = sorted({f.catalog_reason for f in facts if f.catalog_reason is not None})
    if not checked:
        reason = "; ".join(reasons)
        card.update(items_named=None, items_nonexistent=None, nonexistent_item_ratio=None)
        card["nonexistent_item_reason"] = reason
        notes["nonexistent_item_ratio"] = reason
    else:
        named = sum(len(f.items or {}) for f in checked)
        missing = sum(1 for f in checked for exists in (f.items or {}).values() if not exists)
        card["items_named"] = named
        card["items_nonexistent"] = missing
        card["nonexistent_item_ratio"] = missing / named if named else None
        card["nonexistent_item_reason"] = None if named else "the system names no item"
        if not named:
            notes["nonexistent_item_ratio"] = "the system names no item"
        elif len(checked) < len(facts):
            notes["nonexistent_item_ratio"] = (
                f"{len(facts) - len(checked)} transcript(s) are left out: " + "; ".join(reasons)
            )
    accepted = [f for f in facts if f.accepted]
    judged = [f for f in accepted if f.deceptive is not None]
    card["deceptive_judged_catalog"] = len(judged)
    card["deceptive_ratio_catalog"] = (
        sum(1 for f in judged if f.deceptive) / len(judged) if judged else None
    )
    if not accepted:
        notes["deceptive_ratio_catalog"] = "no transcript in the group was accepted"
    elif len(judged) < len(accepted):
        counts: dict[str, int] = {}
        for f in accepted:
            if f.deceptive is None:
                reason = f.deceptive_reason or "not judged"
                counts[reason] = counts.get(reason, 0) + 1
        left_out = "; ".join(f"{count} with {reason}" for reason, count in sorted(counts.items()))
        prefix = "no accepted transcript could be judged" if not judged else "left out"
        notes["deceptive_ratio_catalog"] = f"{prefix}: {left_out}"


def _rubric_measures(
    facts: Sequence[TranscriptFacts], sources: Sequence[RaterSource], card: dict[str, Any]
) -> None:
    notes: dict[str, str] = card["notes"]
    accepted = [f for f in facts if f.accepted]
    llm_ratios: list[float] = []
    for source in sources:
        values: dict[str, list[float]] = {}
        for f in facts:
            for dimension, score in source.scores.get(f.id, {}).items():
                number = _number(score)
                if number is not None and dimension != DECEPTION_DIMENSION:
                    values.setdefault(dimension, []).append(number)
        extra = sorted(set(values) - set(RUBRIC_DIMENSIONS))
        for dimension in (*RUBRIC_DIMENSIONS, *extra):
            key = f"{source.name}_{dimension}"
            card[key] = _mean(values.get(dimension, []))
            if card[key] is None:
                notes[key] = f"no {source.name} score on {dimension} in the group"
        shares = []
        for f in accepted:
            answer = _number(source.scores.get(f.id, {}).get(DECEPTION_DIMENSION))
            if answer is not None:
                shares.append(1.0 - answer)
        key = f"deceptive_ratio_{source.name}"
        card[key] = _mean(shares)
        card[f"deceptive_judged_{source.name}"] = len(shares)
        if card[key] is None:
            notes[key] = (
                f"no {source.name} answer on {DECEPTION_DIMENSION} for an accepted transcript"
            )
        elif source.name.startswith("llm_"):
            llm_ratios.append(card[key])
    if not any(s.name == "human" for s in sources):
        card["deceptive_ratio_human"] = None
        notes["deceptive_ratio_human"] = "no human scores were given"
    card["deceptive_ratio_llm"] = _mean(llm_ratios)
    if not any(s.name.startswith("llm_") for s in sources):
        notes["deceptive_ratio_llm"] = "no LLM scores were given"
    elif card["deceptive_ratio_llm"] is None:
        notes["deceptive_ratio_llm"] = "no LLM evaluator answered for an accepted transcript"


# Composite ability scores (0–5) ---------------------------------------------------------------


def quality_score(acceptance_rate: float | None) -> float | None:
    """Quality = 5 × AR."""
    return None if acceptance_rate is None else 5 * acceptance_rate


def sincerity_score(deceptive_ratio: float | None, nonexistent_ratio: float | None) -> float | None:
    """Sincerity = 5 × (1 − (deceptive ratio + non-existent item ratio) / 2)."""
    if deceptive_ratio is None or nonexistent_ratio is None:
        return None
    return 5 * (1 - (deceptive_ratio + nonexistent_ratio) / 2)


def identity_score(persuasiveness: float | None, deceptive_ratio: float | None) -> float | None:
    """Identity = persuasiveness (1–5) × (1 − deceptive ratio): persuasive and honest."""
    if persuasiveness is None or deceptive_ratio is None:
        return None
    return persuasiveness * (1 - deceptive_ratio)


def cooperation_score(
    manner: float | None,
    quality: float | None,
    relevance: float | None,
    sincerity: float | None,
) -> float | None:
    """Cooperation = the mean of the four maxims: manner, quality, relevance and sincerity."""
    maxims = (manner, quality, relevance, sincerity)
    if any(value is None for value in maxims):
        return None
    return sum(value for value in maxims if value is not None) / 4


def coordination_score(coordination_value: float | None) -> float | None:
    """Coordination = 5 − the mean over abilities of range / mean across personas, in [0, 5]."""
    if coordination_value is None:
        return None
    return min(5.0, max(0.0, 5 - coordination_value))


def _composites(card: dict[str, Any], sources: Sequence[RaterSource]) -> None:
    notes: dict[str, str] = card["notes"]
    card["quality_score"] = quality_score(card["acceptance_rate"])
    card["sincerity_score"] = sincerity_score(
        card["deceptive_ratio_catalog"], card["nonexistent_item_ratio"]
    )
    if card["sincerity_score"] is None:
        notes["sincerity_score"] = "needs both deceptive_ratio_catalog and nonexistent_item_ratio"
    for source in sources:
        name = source.name
        card[f"identity_score_{name}"] = identity_score(
            card[f"{name}_persuasiveness"], card["deceptive_ratio_catalog"]
        )
        card[f"cooperation_score_{name}"] = cooperation_score(
            card[f"{name}_manner"],
            card[f"{name}_quality"],
            card[f"{name}_relevance"],
            card["sincerity_score"],
        )
        card[f"social_awareness_score_{name}"] = card[f"{name}_social_awareness"]
        if card[f"identity_score_{name}"] is None:
            notes[f"identity_score_{name}"] = (
                f"needs {name}_persuasiveness and deceptive_ratio_catalog"
            )
        if card[f"cooperation_score_{name}"] is None:
            notes[f"cooperation_score_{name}"] = (
                f"needs {name}_manner, {name}_quality, {name}_relevance and sincerity_score"
            )
        if card[f"social_awareness_score_{name}"] is None:
            notes[f"social_awareness_score_{name}"] = f"needs {name}_social_awareness"


def _abilities(card: Mapping[str, Any], source: str) -> dict[str, float | None]:
    return {
        "quality": card["quality_score"],
        "identity": card[f"identity_score_{source}"],
        "cooperation": card[f"cooperation_score_{source}"],
        "social_awareness": card[f"social_awareness_score_{source}"],
    }


def _measure_group(
    facts: Sequence[TranscriptFacts], sources: Sequence[RaterSource]
) -> dict[str, Any]:
    card: dict[str, Any] = {"n": len(facts), "notes": {}}
    _quality_measures(facts, card)
    _sincerity_measures(facts, card)
    _rubric_measures(facts, sources, card)
    _composites(card, sources)
    return card


# Coordination -----------------------------------------------------------------------------------


def _coordination(
    groups: Mapping[str, Mapping[str, Any]], measures: Sequence[str], persona_field: str
) -> dict[str, Any]:
    per_measure: dict[str, float | None] = {}
    group_means: dict[str, dict[str, float | None]] = {}
    notes: dict[str, str] = {}
    personas = sorted(groups)
    for measure in measures:
        means = {persona: _number(groups[persona].get(measure)) for persona in personas}
        group_means[measure] = means
        known = [value for value in means.values() if value is not None]
        if len(known) < 2:
            per_measure[measure] = None
            notes[measure] = f"has a value in fewer than two {persona_field} groups"
            continue
        mean = sum(known) / len(known)
        if mean <= 0:
            per_measure[measure] = None
            notes[measure] = "its mean across groups is not above 0, so the range cannot be scaled"
            continue
        per_measure[measure] = (max(known) - min(known)) / mean
    values = [value for value in per_measure.values() if value is not None]
    value = _mean(values)
    return {
        "persona_field": persona_field,
        "groups": personas,
        "measures": per_measure,
        "group_means": group_means,
        "value": value,
        "score": coordination_score(value),
        "notes": notes,
    }


def _has_turns(row: Any) -> bool:
    return _get(row, "turns") is not None


def coordination(
    rows_or_groups: Iterable[Any] | Mapping[str, Mapping[str, Any]],
    measures: Sequence[str],
    persona_field: str,
    *,
    catalog: CatalogChoice = None,
    human_scores: Mapping[str, Mapping[str, float]] | None = None,
    llm_scores: Mapping[str, Mapping[str, Mapping[str, float]]] | None = None,
) -> dict[str, Any]:
    """For each measure, (max − min) / mean across the persona groups, and their average.

    ``rows_or_groups`` is one of: transcript rows (grouped here by ``persona_field`` with
    ``scorecard``); scorecard rows holding a ``persona_field`` column; or a mapping from
    persona value to measure values. Groups without a persona value are left out. The result
    keeps the per-group values (``group_means``) that each ratio came from: a low value can
    also mean that every group did equally badly.
    """
    if isinstance(rows_or_groups, Mapping):
        return _coordination(
            {str(k): v for k, v in rows_or_groups.items()}, measures, persona_field
        )
    rows = list(rows_or_groups)
    if rows and _has_turns(rows[0]):
        rows = scorecard(
            rows,
            by=(persona_field,),
            catalog=catalog,
            human_scores=human_scores,
            llm_scores=llm_scores,
        )
    groups: dict[str, Mapping[str, Any]] = {}
    left_out = 0
    for row in rows:
        persona = row.get(persona_field)
        if persona is None or persona == "":
            left_out += int(row.get("n", 1))
            continue
        if persona in groups:
            raise ValueError(f"more than one group has {persona_field} = {persona!r}")
        groups[str(persona)] = row
    result = _coordination(groups, measures, persona_field)
    if left_out:
        result["notes"]["groups"] = f"{left_out} transcript(s) without a {persona_field} left out"
    return result


def _coordination_within(
    facts: Sequence[TranscriptFacts], sources: Sequence[RaterSource], card: dict[str, Any]
) -> None:
    if not sources:
        return
    notes: dict[str, str] = card["notes"]
    by_field: dict[str, dict[str, dict[str, Any]]] = {}
    for persona_field in PERSONA_FIELDS:
        split: dict[str, list[TranscriptFacts]] = {}
        for f in facts:
            if f.personas.get(persona_field):
                split.setdefault(f.personas[persona_field], []).append(f)
        by_field[persona_field] = {
            persona: _measure_group(members, sources) for persona, members in split.items()
        }
    for source in sources:
        details = {}
        for persona_field, subgroups in by_field.items():
            abilities = {
                persona: _abilities(sub, source.name) for persona, sub in subgroups.items()
            }
            details[persona_field] = _coordination(abilities, COORDINATED_ABILITIES, persona_field)
        card[f"coordination_{source.name}"] = details
        for suffix, persona_field in (("", "persona_emotion"), ("_age_group", "persona_age_group")):
            key = f"coordination_score_{source.name}{suffix}"
            card[key] = details[persona_field]["score"]
            if card[key] is None:
                notes[key] = f"no ability has a value in two or more {persona_field} groups"


# The scorecard ----------------------------------------------------------------------------------


def _group_keys(row: Any, by: Sequence[str]) -> list[tuple[str | None, ...]]:
    choices: list[list[str | None]] = []
    for name in by:
        if name in PREFERENCE_GROUPINGS:
            preferences = list(dict.fromkeys(_strings(_get(row, "preferences"))))
            choices.append(list(preferences) if preferences else [None])
        else:
            choices.append([group_value(row, name)])
    return list(itertools.product(*choices))


def _sort_key(key: tuple[str | None, ...]) -> tuple[tuple[bool, str], ...]:
    return tuple((value is None, value or "") for value in key)


def scorecard(
    rows: Iterable[Any],
    *,
    by: Sequence[str] = ("system", "dataset"),
    catalog: CatalogChoice = None,
    human_scores: Mapping[str, Mapping[str, float]] | None = None,
    llm_scores: Mapping[str, Mapping[str, Mapping[str, float]]] | None = None,
) -> list[dict[str, Any]]:
    """The CONCEPT measures per group of transcripts, one JSON-safe dict per group.

    ``by`` names transcript fields or metadata keys; ``preference`` (or ``attribute``,
    ``genre``) puts a transcript in one group per stated preference. ``catalog`` is one
    ``Catalog`` for every transcript or a mapping from dataset to ``Catalog``.
    ``human_scores`` maps transcript id → {dimension: mean human score}; ``llm_scores`` maps
    evaluator → transcript id → {dimension: score}. A measure that cannot be computed is None,
    and ``notes`` says why.
    """
    sources = rater_sources(human_scores, llm_scores)
    groups: dict[tuple[str | None, ...], list[TranscriptFacts]] = {}
    for row in rows:
        facts = transcript_facts(row, catalog)
        for key in _group_keys(row, by):
            groups.setdefault(key, []).append(facts)
    cards = []
    for key in sorted(groups, key=_sort_key):
        members = groups[key]
        card: dict[str, Any] = dict(zip(by, key, strict=True))
        measured = _measure_group(members, sources)
        _coordination_within(members, sources, measured)
        notes = measured.pop("notes")
        card.update(measured)
        card["notes"] = notes
        cards.append(card)
    return cards
