"""Catalogs kept in the database: stored in one write transaction, loaded back as ``Catalog``.

Each transcript dataset is served by at most one stored catalog. A loaded catalog is kept in
memory until the stored one is imported again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from django.db import transaction
from django.utils import timezone

from annotation.concept.catalogs import Catalog, CatalogContents, CatalogItem
from annotation.imports.problems import Problems
from annotation.models import Catalog as StoredCatalog
from annotation.models import CatalogItem as StoredEntry
from annotation.models import Transcript

CONCEPT4CRS_SUFFIX = "_eval"
_DATASET_LENGTH = Transcript._meta.get_field("dataset").max_length or 100
_SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")
_WRITE_BATCH = 2000


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
    problems = Problems()
    if not _SLUG.fullmatch(name) or len(name) > 100:
        problems.note(name, "a catalog name is letters, digits, '-' and '_' (at most 100)")
    if not datasets:
        problems.note(name, "the catalog must serve at least one dataset")
    for dataset in datasets:
        if len(dataset) > _DATASET_LENGTH:
            problems.note(name, f"dataset {dataset!r} is longer than {_DATASET_LENGTH} characters")
    problems.raise_if_any()
    with transaction.atomic():
        for other in StoredCatalog.objects.exclude(name=name).select_for_update():
            for dataset in sorted(set(datasets) & set(other.datasets)):
                problems.note(
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
_BUILT: dict[int, tuple[str, Catalog]] = {}


def load_catalog(stored: StoredCatalog) -> Catalog:
    """The stored catalog as an ``annotation.Catalog``."""
    stamp = stored.imported_at.isoformat()
    cached = _BUILT.get(stored.pk)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    items: list[CatalogItem] = []
    others: list[str] = []
    entries = stored.entries.order_by().values_list("kind", "item_id", "name", "year", "attributes")
    for kind, item_id, name, year, attributes in entries.iterator(chunk_size=_WRITE_BATCH):
        if kind == StoredEntry.Kind.ITEM:
            items.append(CatalogItem(item_id, name, year, tuple(attributes or ())))
        else:
            others.append(name)
    built = Catalog(items, other_entities=others)
    _BUILT[stored.pk] = (stamp, built)
    return built


def catalogs_for(datasets: Iterable[str]) -> dict[str, tuple[str, Catalog]]:
    """For each of ``datasets`` that a stored catalog serves: that catalog's name and contents."""
    wanted = set(datasets)
    found: dict[str, tuple[str, Catalog]] = {}
    # Few catalogs exist, and SQLite cannot search inside a JSON list, so they are all read.
    for stored in StoredCatalog.objects.all():
        served = wanted.intersection(stored.datasets)
        if served:
            built = load_catalog(stored)
            for dataset in served:
                found[dataset] = (stored.name, built)
    return found
