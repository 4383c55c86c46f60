"""What the CONCEPT measures read from one transcript: acceptance, recommendation success,
the items the system names and whether they exist, and whether the acceptance was deceptive.

A transcript row is a mapping, or any object with attributes (such as an
``annotation.models.Transcript``), holding the fields the importers store (``external_id``,
``system``, ``dataset``, ``persona_emotion``, ``persona_age_group``, ``preferences``,
``turns``, ``accepted``, ``accepted_items``, ``accepted_turn``, ``metadata``). Nothing here
touches the database. ``transcript_facts`` works everything out in one pass.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.concept.catalogs import Catalog, CatalogChoice
from annotation.concept.mentions import (
    ItemMention,
    mentions_in_turn,
    split_year,
    text_values,
    title_key,
)
from evalsite.agreement.phrases import Phrase, gettext_noop
from evalsite.user_simulation import END_MARK

PERSONA_FIELDS = ("persona_emotion", "persona_age_group")
_NOT_ALPHANUMERIC = re.compile(r"[^0-9a-z]+")


# Reading rows ---------------------------------------------------------------------------------


def row_field(row: Any, name: str) -> Any:
    """The field ``name`` of a transcript row (a mapping or an object), None if it has none."""
    # dict first: the abstract Mapping check is slow enough to show on 6,720 transcripts.
    if isinstance(row, dict | Mapping):
        return row.get(name)
    return getattr(row, name, None)


def _transcript_id(row: Any) -> str:
    found = row_field(row, "external_id")
    if found is None:
        found = row_field(row, "id")
    return "" if found is None else str(found)


def _turns(row: Any) -> list[dict[str, Any]]:
    # Turns are stored as JSON, so each one is a dict.
    turns = row_field(row, "turns")
    return turns if isinstance(turns, list) else []


def group_value(row: Any, name: str) -> str | None:
    """The value of column ``name`` of a transcript, looked up in its metadata if need be."""
    if name.startswith("metadata."):
        name, value = name.removeprefix("metadata."), None
    else:
        value = row_field(row, name)
    if value is None:
        metadata = row_field(row, "metadata")
        if isinstance(metadata, Mapping):
            value = metadata.get(name)
    return None if value is None else str(value)


# Acceptance and success ---------------------------------------------------------------------


def _accepting_index(turns: Sequence[Mapping[str, Any]]) -> int | None:
    for index, turn in enumerate(turns):
        if turn.get("role") == "user" and END_MARK in str(turn.get("text") or ""):
            return index
    return None


def is_accepted(row: Any) -> bool:
    """Whether the user accepted: the stored outcome, else a user turn containing ``[END]``."""
    accepted = row_field(row, "accepted")
    if accepted is not None:
        return bool(accepted)
    return _accepting_index(_turns(row)) is not None


def turns_to_accept(row: Any) -> int | None:
    """User turns from the first one up to and including the accepting turn; None if unknown."""
    if not is_accepted(row):
        return None
    turns = _turns(row)
    accepted_turn = row_field(row, "accepted_turn")
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


# Items named and accepted ------------------------------------------------------------------


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


def named_items(row: Any) -> list[ItemMention]:
    """Every item name the system says in a transcript (system turns only), in order."""
    return [
        mention
        for turn in _turns(row)
        if turn.get("role") == "system"
        for mention in mentions_in_turn(turn)
    ]


def catalog_for(row: Any, catalog: CatalogChoice) -> tuple[Catalog | None, str | None]:
    """The catalog of a transcript's dataset, or None and the reason there is none."""
    if catalog is None:
        return None, Phrase(gettext_noop("no item catalog was given"))
    if isinstance(catalog, Catalog):
        return catalog, None
    dataset = group_value(row, "dataset") or ""
    found = catalog.get(dataset)
    if found is None:
        return None, Phrase(
            gettext_noop("no item catalog for dataset '%(dataset)s'"), dataset=str(dataset)
        )
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
        return None, Phrase(gettext_noop("not accepted"))
    preferences = {attribute_key(p) for p in text_values(row_field(row, "preferences"))}
    if not preferences:
        return None, Phrase(gettext_noop("no stated preferences"))
    accepted = text_values(row_field(row, "accepted_items"))
    if not accepted:
        return None, Phrase(gettext_noop("no accepted items recorded"))
    described = [
        item
        for item in (catalog.find(*split_year(name)) for name in accepted)
        if item is not None and item.attributes
    ]
    if not described:
        return None, Phrase(gettext_noop("no accepted item is in the catalog with attributes"))
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
    # Concept4CRS: the (system, dataset, profile, attribute) cell of the file, and how many files
    # of the same cell the import skipped in this transcript's favour.
    cell: tuple[str, str, int, int] | None = None
    duplicates_dropped: int = 0


def concept4crs_cell(row: Any) -> tuple[tuple[str, str, int, int] | None, int]:
    """The persona × attribute cell a Concept4CRS transcript fills (None for other sources),
    and the number of duplicates of it that were dropped at import."""
    metadata = row_field(row, "metadata")
    if not isinstance(metadata, Mapping) or metadata.get("source") != "concept4crs":
        return None, 0
    profile, attribute = metadata.get("profile"), metadata.get("attribute")
    if not isinstance(profile, int) or not isinstance(attribute, int):
        return None, 0
    dropped = metadata.get("dropped_duplicates")
    cell = (group_value(row, "system") or "", group_value(row, "dataset") or "", profile, attribute)
    return cell, len(dropped) if isinstance(dropped, list) else 0


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
    cell, dropped = concept4crs_cell(row)
    return TranscriptFacts(
        id=_transcript_id(row),
        accepted=is_accepted(row),
        outcome_recorded=row_field(row, "accepted") is not None,
        turns_to_accept=turns_to_accept(row),
        first_success=firsts,
        success_flagged=flagged,
        items=items,
        catalog_reason=reason,
        deceptive=deceptive,
        deceptive_reason=deceptive_reason,
        personas={name: group_value(row, name) or "" for name in PERSONA_FIELDS},
        cell=cell,
        duplicates_dropped=dropped,
    )
