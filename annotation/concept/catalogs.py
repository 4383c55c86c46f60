"""Item catalogs: the items a dataset knows, and the one reader of each catalog file format.

A ``Catalog`` finds items by title (``annotation.concept.mentions.title_key``) and knows the
dataset's other entity names (people, genres), which never count as non-existent items.
Catalog files are read in full and every bad line is reported before anything is returned:
a CSV file with the header ``id,name,year,attributes`` (``read_catalog_csv``), or a
Concept4CRS ``<dataset>_entity2id.json`` and ``<dataset>_id2info.json`` pair
(``read_concept4crs_catalog``).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from annotation.concept.mentions import YEAR, ItemMention, split_year, title_key
from annotation.imports.problems import ImportFailed, Problem, Problems
from annotation.models import CatalogItem as StoredEntry

YEAR_TOLERANCE = 1
CSV_COLUMNS = ("id", "name", "year", "attributes")
ATTRIBUTE_SEPARATOR = "|"
_RESOLVED_LIMIT = 100_000
_FOUR_DIGITS = re.compile(r"\d{4}")
_ID_LENGTH = StoredEntry._meta.get_field("item_id").max_length or 255
_NAME_LENGTH = StoredEntry._meta.get_field("name").max_length or 500


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
        if re.fullmatch(YEAR, raw_year):
            year = int(raw_year)
        known = items.get(item_id)
        if known is not None:
            genres = tuple(dict.fromkeys(known.attributes + genres))
            year = known.year if known.year is not None else year
        items[item_id] = CatalogItem(item_id, name, year, genres)
    names = {item.name for item in items.values()}
    return Catalog(items.values(), other_entities=(n for n in entity2id if n not in names))


CatalogChoice: TypeAlias = Catalog | Mapping[str, Catalog] | None


# Reading catalog files ------------------------------------------------------------------------


@dataclass
class CatalogContents:
    """A validated catalog file: its items, and the other entity names it knows with their ids."""

    source: str
    items: list[CatalogItem]
    other_entities: list[tuple[str, str]] = field(default_factory=list)


def _csv_item(
    cells: Mapping[str | None, Any], seen: dict[str, int], line: int
) -> tuple[CatalogItem | None, list[str]]:
    errors: list[str] = []
    if cells.get(None):
        errors.append("has more cells than the header has columns")
    item_id = str(cells.get("id") or "").strip()
    name = str(cells.get("name") or "").strip()
    year_text = str(cells.get("year") or "").strip()
    if not item_id:
        errors.append("id is required")
    elif len(item_id) > _ID_LENGTH:
        errors.append(f"id is longer than {_ID_LENGTH} characters")
    elif item_id in seen:
        errors.append(f"id {item_id!r} is repeated (first on line {seen[item_id]})")
    if not name:
        errors.append("name is required")
    elif len(name) > _NAME_LENGTH:
        errors.append(f"name is longer than {_NAME_LENGTH} characters")
    if year_text and not _FOUR_DIGITS.fullmatch(year_text):
        errors.append(f"year {year_text!r} is not a four-digit year")
    if item_id and item_id not in seen:
        seen[item_id] = line
    if errors:
        return None, errors
    attributes = tuple(
        part.strip()
        for part in str(cells.get("attributes") or "").split(ATTRIBUTE_SEPARATOR)
        if part.strip()
    )
    year = int(year_text) if year_text else None
    return CatalogItem(item_id, name, year, attributes), []


def read_catalog_csv(path: str | Path) -> CatalogContents:
    """A CSV catalog with the header ``id,name,year,attributes`` (year and attributes may be
    left out; attributes are separated by ``|``). Every bad line is reported, by line number
    and field, before anything is returned."""
    path = Path(path)
    problems = Problems()
    items: list[CatalogItem] = []
    if not path.is_file():
        raise ImportFailed([Problem(str(path), "does not exist")])
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames
        if not header:
            raise ImportFailed(
                [Problem(path.name, "is empty; the header is id,name,year,attributes")]
            )
        header = [column.strip() for column in header]
        reader.fieldnames = header
        for column in ("id", "name"):
            if column not in header:
                problems.note(path.name, f"the column {column!r} is missing", 1)
        for column in header:
            if column not in CSV_COLUMNS:
                problems.note(path.name, f"unknown column {column!r}", 1)
        problems.raise_if_any()
        seen: dict[str, int] = {}
        last_line = reader.line_num
        for cells in reader:
            # A quoted cell may span lines; a record starts on the line after the last one.
            line, last_line = last_line + 1, reader.line_num
            item, errors = _csv_item(cells, seen, line)
            for error in errors:
                problems.note(path.name, error, line)
            if item is not None:
                items.append(item)
    problems.raise_if_any()
    if not items:
        raise ImportFailed([Problem(path.name, "holds no items")])
    return CatalogContents(path.name, items)


def _json_file(path: Path, problems: Problems) -> Any:
    if not path.is_file():
        problems.note(path.name, f"not found in {path.parent}")
        return None
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as error:
        problems.note(
            path.name, f"not valid JSON: {error.msg} (column {error.colno})", error.lineno
        )
    except UnicodeDecodeError:
        problems.note(path.name, "is not UTF-8 text")
    return None


def _check_entity2id(data: Any, source: str, problems: Problems) -> dict[str, int]:
    if not isinstance(data, dict):
        problems.note(source, "must be an object mapping each entity name to its integer id")
        return {}
    owners: dict[int, str] = {}
    for name, entity_id in data.items():
        if not name.strip():
            problems.note(source, "an entity name is empty")
        elif len(name) > _NAME_LENGTH:
            problems.note(source, f"entity {name[:40]!r}…: name is longer than {_NAME_LENGTH}")
        if isinstance(entity_id, bool) or not isinstance(entity_id, int):
            problems.note(source, f"entity {name!r}: id must be an integer, not {entity_id!r}")
        elif entity_id in owners:
            problems.note(source, f"entity {name!r}: id {entity_id} is also {owners[entity_id]!r}")
        else:
            owners[entity_id] = name
    return data


def _check_id2info(data: Any, source: str, problems: Problems) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict):
        problems.note(source, "must be an object mapping each item key to its details")
        return {}
    for key, info in data.items():
        where = f"entry {key!r}"
        if not isinstance(info, dict):
            problems.note(source, f"{where} must be an object")
            continue
        name = info.get("name")
        if not isinstance(name, str) or not name.strip():
            problems.note(source, f"{where}: name is required")
        elif len(name) > _NAME_LENGTH:
            problems.note(source, f"{where}: name is longer than {_NAME_LENGTH} characters")
        genre = info.get("genre")
        if genre is not None and not (
            isinstance(genre, list) and all(isinstance(g, str) for g in genre)
        ):
            problems.note(source, f"{where}: genre must be a list of strings")
        year = info.get("year")
        if year is not None and (isinstance(year, bool) or not isinstance(year, str | int)):
            problems.note(source, f"{where}: year must be a string or a number")
    return data


def read_concept4crs_catalog(folder: str | Path, dataset: str) -> CatalogContents:
    """The ``<dataset>_entity2id.json`` and ``<dataset>_id2info.json`` pair of a Concept4CRS
    catalogs folder. Items are the ``id2info`` entries under their entity ids; every other
    entity name (people, genres, years) is kept as a known name that is not an item."""
    folder = Path(folder)
    entity_path = folder / f"{dataset}_entity2id.json"
    info_path = folder / f"{dataset}_id2info.json"
    problems = Problems()
    if not folder.is_dir():
        raise ImportFailed([Problem(str(folder), "is not a folder")])
    entity_data = _json_file(entity_path, problems)
    info_data = _json_file(info_path, problems)
    problems.raise_if_any()
    entity2id = _check_entity2id(entity_data, entity_path.name, problems)
    id2info = _check_id2info(info_data, info_path.name, problems)
    problems.raise_if_any()
    catalog = catalog_from_concept4crs(entity2id, id2info)
    # Entries sharing a name are one item, so the catalog is asked for each id once.
    item_ids = dict.fromkeys(
        str(entity2id[info["name"]]) if info["name"] in entity2id else f"info-{key}"
        for key, info in id2info.items()
    )
    items = [item for item in map(catalog.item, item_ids) if item is not None]
    if not items:
        raise ImportFailed([Problem(info_path.name, "holds no items")])
    names = {item.name for item in items}
    others = [(name, str(entity_id)) for name, entity_id in entity2id.items() if name not in names]
    return CatalogContents(f"{entity_path.name} + {info_path.name}", items, others)
