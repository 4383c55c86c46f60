"""The CONCEPT scorecard of an annotation campaign: item catalogs kept in the database, and the
transcripts, human answers and LLM scores gathered for ``annotation.concept``.

``annotation.concept`` holds every formula and reads plain rows; this module is the database
side. It imports catalogs (validated in full before one write, so a bad file changes nothing),
gathers one campaign's inputs in a handful of queries, and turns the scorecard into the
"CONCEPT" sheet of the Excel report.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Avg
from django.utils import timezone

from annotation import concept
from annotation.imports.problems import MAX_PROBLEMS, ImportFailed, Problem
from annotation.models import Assignment, Campaign, Dimension, LLMScore, Response, Transcript
from annotation.models import Catalog as StoredCatalog
from annotation.models import CatalogItem as StoredEntry
from evalsite.spreadsheets import BarChartSpec, CellValue, Sheet

DEFAULT_BY = ("system", "dataset")
# The transcript fields the measures read (``annotation.concept`` names them).
ROW_FIELDS = (
    "external_id",
    "system",
    "dataset",
    "persona_emotion",
    "persona_age_group",
    "preferences",
    "turns",
    "accepted",
    "accepted_items",
    "accepted_turn",
    "metadata",
)
HUMAN = "human"
# The six ability scores (0–5) of the paper, as scorecard keys; ``{source}`` is ``human`` or
# ``llm_<evaluator>``. Reliability has no score (see docs/concept.md), Sincerity stands in.
ABILITY_SCORES = (
    ("quality", "quality_score"),
    ("sincerity", "sincerity_score"),
    ("identity", "identity_score_{source}"),
    ("cooperation", "cooperation_score_{source}"),
    ("social_awareness", "social_awareness_score_{source}"),
    ("coordination", "coordination_score_{source}"),
)
CSV_COLUMNS = ("id", "name", "year", "attributes")
ATTRIBUTE_SEPARATOR = "|"
CONCEPT4CRS_SUFFIX = "_eval"
SHEET_TITLE = "CONCEPT"

_FOUR_DIGITS = re.compile(r"\d{4}")
_ID_LENGTH = StoredEntry._meta.get_field("item_id").max_length or 255
_NAME_LENGTH = StoredEntry._meta.get_field("name").max_length or 500
_DATASET_LENGTH = Transcript._meta.get_field("dataset").max_length or 100
_SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")
_WRITE_BATCH = 2000


# Reading catalog files ------------------------------------------------------------------------


@dataclass
class CatalogContents:
    """A validated catalog file: its items, and the other entity names it knows with their ids."""

    source: str
    items: list[concept.CatalogItem]
    other_entities: list[tuple[str, str]] = field(default_factory=list)


class _Problems:
    def __init__(self) -> None:
        self.kept: list[Problem] = []
        self.total = 0

    def add(self, source: str, message: str, line: int | None = None) -> None:
        self.total += 1
        if len(self.kept) < MAX_PROBLEMS:
            self.kept.append(Problem(source, message, line))

    def raise_if_any(self) -> None:
        if self.total:
            raise ImportFailed(self.kept, self.total)


def _csv_item(
    cells: Mapping[str | None, Any], seen: dict[str, int], line: int
) -> tuple[concept.CatalogItem | None, list[str]]:
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
    return concept.CatalogItem(item_id, name, year, attributes), []


def read_catalog_csv(path: str | Path) -> CatalogContents:
    """A CSV catalog with the header ``id,name,year,attributes`` (year and attributes may be
    left out; attributes are separated by ``|``). Every bad line is reported, by line number
    and field, before anything is returned."""
    path = Path(path)
    problems = _Problems()
    items: list[concept.CatalogItem] = []
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
                problems.add(path.name, f"the column {column!r} is missing", 1)
        for column in header:
            if column not in CSV_COLUMNS:
                problems.add(path.name, f"unknown column {column!r}", 1)
        problems.raise_if_any()
        seen: dict[str, int] = {}
        last_line = reader.line_num
        for cells in reader:
            # A quoted cell may span lines; a record starts on the line after the last one.
            line, last_line = last_line + 1, reader.line_num
            item, errors = _csv_item(cells, seen, line)
            for error in errors:
                problems.add(path.name, error, line)
            if item is not None:
                items.append(item)
    problems.raise_if_any()
    if not items:
        raise ImportFailed([Problem(path.name, "holds no items")])
    return CatalogContents(path.name, items)


def _json_file(path: Path, problems: _Problems) -> Any:
    if not path.is_file():
        problems.add(path.name, f"not found in {path.parent}")
        return None
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as error:
        problems.add(path.name, f"not valid JSON: {error.msg} (column {error.colno})", error.lineno)
    except UnicodeDecodeError:
        problems.add(path.name, "is not UTF-8 text")
    return None


def _check_entity2id(data: Any, source: str, problems: _Problems) -> dict[str, int]:
    if not isinstance(data, dict):
        problems.add(source, "must be an object mapping each entity name to its integer id")
        return {}
    owners: dict[int, str] = {}
    for name, entity_id in data.items():
        if not name.strip():
            problems.add(source, "an entity name is empty")
        elif len(name) > _NAME_LENGTH:
            problems.add(source, f"entity {name[:40]!r}…: name is longer than {_NAME_LENGTH}")
        if isinstance(entity_id, bool) or not isinstance(entity_id, int):
            problems.add(source, f"entity {name!r}: id must be an integer, not {entity_id!r}")
        elif entity_id in owners:
            problems.add(source, f"entity {name!r}: id {entity_id} is also {owners[entity_id]!r}")
        else:
            owners[entity_id] = name
    return data


def _check_id2info(data: Any, source: str, problems: _Problems) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict):
        problems.add(source, "must be an object mapping each item key to its details")
        return {}
    for key, info in data.items():
        where = f"entry {key!r}"
        if not isinstance(info, dict):
            problems.add(source, f"{where} must be an object")
            continue
        name = info.get("name")
        if not isinstance(name, str) or not name.strip():
            problems.add(source, f"{where}: name is required")
        elif len(name) > _NAME_LENGTH:
            problems.add(source, f"{where}: name is longer than {_NAME_LENGTH} characters")
        genre = info.get("genre")
        if genre is not None and not (
            isinstance(genre, list) and all(isinstance(g, str) for g in genre)
        ):
            problems.add(source, f"{where}: genre must be a list of strings")
        year = info.get("year")
        if year is not None and (isinstance(year, bool) or not isinstance(year, str | int)):
            problems.add(source, f"{where}: year must be a string or a number")
    return data


def read_concept4crs_catalog(folder: str | Path, dataset: str) -> CatalogContents:
    """The ``<dataset>_entity2id.json`` and ``<dataset>_id2info.json`` pair of a Concept4CRS
    catalogs folder. Items are the ``id2info`` entries under their entity ids; every other
    entity name (people, genres, years) is kept as a known name that is not an item."""
    folder = Path(folder)
    entity_path = folder / f"{dataset}_entity2id.json"
    info_path = folder / f"{dataset}_id2info.json"
    problems = _Problems()
    if not folder.is_dir():
        raise ImportFailed([Problem(str(folder), "is not a folder")])
    entity_data = _json_file(entity_path, problems)
    info_data = _json_file(info_path, problems)
    problems.raise_if_any()
    entity2id = _check_entity2id(entity_data, entity_path.name, problems)
    id2info = _check_id2info(info_data, info_path.name, problems)
    problems.raise_if_any()
    catalog = concept.catalog_from_concept4crs(entity2id, id2info)
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


# Storing catalogs -----------------------------------------------------------------------------


def served_datasets(name: str, datasets: Iterable[str] = (), *, concept4crs: str = "") -> list[str]:
    """The transcript datasets a catalog describes: those given, else its own name and, for a
    Concept4CRS catalog, the folder name of that dataset's dialogues (``redial_eval``)."""
    chosen = [dataset.strip() for dataset in datasets if dataset.strip()]
    if not chosen:
        chosen = [name] + ([concept4crs + CONCEPT4CRS_SUFFIX] if concept4crs else [])
    return list(dict.fromkeys(chosen))


def store_catalog(name: str, datasets: Sequence[str], contents: CatalogContents) -> StoredCatalog:
    """Create or replace the catalog called ``name``, serving ``datasets``, in one transaction.

    A dataset served by another catalog is refused: each transcript must have one catalog.
    """
    problems = _Problems()
    if not _SLUG.fullmatch(name) or len(name) > 100:
        problems.add(name, "a catalog name is letters, digits, '-' and '_' (at most 100)")
    if not datasets:
        problems.add(name, "the catalog must serve at least one dataset")
    for dataset in datasets:
        if len(dataset) > _DATASET_LENGTH:
            problems.add(name, f"dataset {dataset!r} is longer than {_DATASET_LENGTH} characters")
    problems.raise_if_any()
    with transaction.atomic():
        for other in StoredCatalog.objects.exclude(name=name).select_for_update():
            for dataset in sorted(set(datasets) & set(other.datasets)):
                problems.add(
                    name, f"dataset {dataset!r} is already served by catalog {other.name!r}"
                )
        problems.raise_if_any()
        stored, _ = StoredCatalog.objects.update_or_create(
            name=name,
            defaults={
                "datasets": list(datasets),
                "source": contents.source[:500],
                "imported_at": timezone.now(),
            },
        )
        stored.entries.all().delete()
        StoredEntry.objects.bulk_create(_entries(stored, contents), batch_size=_WRITE_BATCH)
    return stored


def _entries(stored: StoredCatalog, contents: CatalogContents) -> Iterator[StoredEntry]:
    for item in contents.items:
        yield StoredEntry(
            catalog=stored,
            kind=StoredEntry.Kind.ITEM,
            item_id=item.id,
            name=item.name,
            year=item.year,
            attributes=list(item.attributes),
        )
    for name, entity_id in contents.other_entities:
        yield StoredEntry(
            catalog=stored, kind=StoredEntry.Kind.ENTITY, item_id=entity_id, name=name
        )


# Loading catalogs -----------------------------------------------------------------------------

# Built catalogs by (pk, import time): a page view should not rebuild 30,000 entries, and a
# re-import changes the time, so a replaced catalog is never served from here.
_BUILT: dict[int, tuple[str, concept.Catalog]] = {}


def load_catalog(stored: StoredCatalog) -> concept.Catalog:
    """The stored catalog as an ``annotation.concept.Catalog``."""
    stamp = stored.imported_at.isoformat()
    cached = _BUILT.get(stored.pk)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    items: list[concept.CatalogItem] = []
    others: list[str] = []
    entries = stored.entries.order_by().values_list("kind", "item_id", "name", "year", "attributes")
    for kind, item_id, name, year, attributes in entries.iterator(chunk_size=_WRITE_BATCH):
        if kind == StoredEntry.Kind.ITEM:
            items.append(concept.CatalogItem(item_id, name, year, tuple(attributes or ())))
        else:
            others.append(name)
    built = concept.Catalog(items, other_entities=others)
    _BUILT[stored.pk] = (stamp, built)
    return built


def catalogs_for(datasets: Iterable[str]) -> dict[str, tuple[str, concept.Catalog]]:
    """For each of ``datasets`` that a stored catalog serves: that catalog's name and contents."""
    wanted = set(datasets)
    found: dict[str, tuple[str, concept.Catalog]] = {}
    # Few catalogs exist, and SQLite cannot search inside a JSON list, so they are all read.
    for stored in StoredCatalog.objects.all():
        served = wanted.intersection(stored.datasets)
        if served:
            built = load_catalog(stored)
            for dataset in served:
                found[dataset] = (stored.name, built)
    return found


# Gathering a campaign -------------------------------------------------------------------------


@dataclass(frozen=True)
class ScorecardInputs:
    """What ``annotation.concept.scorecard`` reads, gathered from one campaign."""

    rows: list[dict[str, Any]]
    human_scores: dict[str, dict[str, float]]
    llm_scores: dict[str, dict[str, dict[str, float]]]
    catalogs: dict[str, concept.Catalog]
    catalog_names: dict[str, str]

    @property
    def datasets(self) -> list[str]:
        return sorted({str(row["dataset"]) for row in self.rows})

    @property
    def datasets_without_catalog(self) -> list[str]:
        return [dataset for dataset in self.datasets if dataset not in self.catalogs]

    @property
    def sources(self) -> list[str]:
        """The rater sources of the scorecard: people, then each LLM evaluator."""
        return [HUMAN, *(f"llm_{evaluator}" for evaluator in sorted(self.llm_scores))]


def gather_inputs(campaign: Campaign) -> ScorecardInputs:
    """The campaign's dialogue transcripts, the mean submitted human answer per transcript and
    dimension, every LLM score by evaluator, and the catalogs of its datasets.

    Pairwise items and pairwise questions are left out: the scorecard measures dialogues.
    Answers still held or skipped do not count, as in the agreement report.
    """
    rows = list(
        campaign.transcripts.filter(kind=Transcript.Kind.DIALOGUE)
        .order_by("position", "pk")
        .values(*ROW_FIELDS)
    )
    answers = (
        Response.objects.filter(
            assignment__campaign=campaign,
            assignment__status=Assignment.Status.SUBMITTED,
            transcript__kind=Transcript.Kind.DIALOGUE,
        )
        .exclude(dimension__kind=Dimension.Kind.PAIRWISE)
        .order_by()
        .values_list("transcript__external_id", "dimension__key")
        .annotate(mean=Avg("value"))
    )
    human: dict[str, dict[str, float]] = {}
    for external_id, dimension, mean in answers:
        human.setdefault(external_id, {})[dimension] = float(mean)
    scores = (
        LLMScore.objects.filter(
            transcript__campaign=campaign, transcript__kind=Transcript.Kind.DIALOGUE
        )
        .exclude(dimension__kind=Dimension.Kind.PAIRWISE)
        .order_by()
        .values_list("evaluator", "transcript__external_id", "dimension__key", "score")
    )
    machine: dict[str, dict[str, dict[str, float]]] = {}
    for evaluator, external_id, dimension, score in scores:
        machine.setdefault(evaluator, {}).setdefault(external_id, {})[dimension] = score
    found = catalogs_for({str(row["dataset"]) for row in rows})
    return ScorecardInputs(
        rows=rows,
        human_scores=human,
        llm_scores=machine,
        catalogs={dataset: built for dataset, (_, built) in found.items()},
        catalog_names={dataset: name for dataset, (name, _) in found.items()},
    )


def campaign_scorecard(
    inputs: ScorecardInputs, by: Sequence[str] = DEFAULT_BY
) -> list[dict[str, Any]]:
    """The scorecard rows of the gathered campaign, grouped ``by`` transcript columns.

    Human scores always take part (their measures are null, with a note, before anybody has
    annotated), so that human and LLM columns sit side by side from the start.
    """
    return concept.scorecard(
        inputs.rows,
        by=tuple(by),
        catalog=inputs.catalogs,
        human_scores=inputs.human_scores,
        llm_scores=inputs.llm_scores,
    )


def ability_keys(source: str) -> list[tuple[str, str]]:
    """The six (ability, scorecard key) pairs for one rater source."""
    return [(ability, key.format(source=source)) for ability, key in ABILITY_SCORES]


# The Excel sheet ------------------------------------------------------------------------------


def scalar_columns(cards: Sequence[Mapping[str, Any]], by: Sequence[str]) -> list[str]:
    """Every measure key of ``cards`` that holds a number (or null), in first-seen order; the
    coordination details (nested) and the notes are left out."""
    columns: dict[str, None] = {}
    for card in cards:
        for key, value in card.items():
            if key in by or key == "notes" or isinstance(value, Mapping | list):
                continue
            columns.setdefault(key)
    return list(columns)


def _group_label(card: Mapping[str, Any], by: Sequence[str]) -> str:
    return " / ".join("—" if card.get(name) is None else str(card[name]) for name in by)


def _notes_text(notes: Mapping[str, str]) -> str:
    return "; ".join(f"{key}: {sentence}" for key, sentence in notes.items())


def concept_sheet(campaign: Campaign) -> Sheet:
    """The CONCEPT scorecard per system × dataset as a worksheet: one row per group, one
    column per measure, the notes that explain each null, and a chart of the six ability
    scores from human judgements."""
    inputs = gather_inputs(campaign)
    cards = campaign_scorecard(inputs)
    measures = scalar_columns(cards, DEFAULT_BY)
    header = ["group", *DEFAULT_BY, *measures, "notes"]
    rows: list[list[CellValue]] = [
        [
            _group_label(card, DEFAULT_BY),
            *(card.get(name) for name in DEFAULT_BY),
            *(card.get(measure) for measure in measures),
            _notes_text(card.get("notes", {})),
        ]
        for card in cards
    ]
    charted = [key for _, key in ability_keys(HUMAN) if key in measures]
    charts = (
        [BarChartSpec("CONCEPT abilities (0–5), human", "group", charted, y_title="score")]
        if charted and rows
        else []
    )
    return Sheet(SHEET_TITLE, header, rows, charts)
