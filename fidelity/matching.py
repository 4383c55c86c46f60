"""The items a free-text answer mentions, found by the catalog's title matching.

The study's catalog (`annotation.concept.catalog_store`), or, when it has none, a catalog of the
study's own items. Titles are found as `annotation.concept.mentions` finds them (quoted titles
and ``Title (Year)``), and also inside Chinese title marks 《…》 and curly quotes “…”, which that
pattern leaves to Latin capitals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext as _

from annotation.concept.catalog_store import load_catalog
from annotation.concept.catalogs import Catalog, CatalogItem
from annotation.concept.mentions import mentions_in_text, split_year, title_key
from annotation.models import Catalog as StoredCatalog
from annotation.models import CatalogItem as StoredEntry
from fidelity.models import Study

_MARKED = re.compile(r"《([^》]{1,100})》|“([^”]{1,100})”")


SHOWN_UNMATCHED = 5


@dataclass(frozen=True)
class CatalogMatch:
    """How many of a study's item ids a catalog holds; ``unmatched`` names a few it lacks.

    A mention is a catalog id, and a prompt's items are study ids: an item whose id the
    catalog lacks is never removed from the mentions as a prompt item."""

    items: int
    matched: int
    unmatched: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return self.matched == self.items


def catalog_match(study: Study, catalog: StoredCatalog) -> CatalogMatch:
    """Which of the study's item ids are item ids of ``catalog``."""
    ids = list(study.items.order_by("id").values_list("item_id", flat=True))
    known = set(
        catalog.entries.filter(kind=StoredEntry.Kind.ITEM, item_id__in=ids).values_list(
            "item_id", flat=True
        )
    )
    missing = [item_id for item_id in ids if item_id not in known]
    return CatalogMatch(len(ids), len(ids) - len(missing), tuple(missing[:SHOWN_UNMATCHED]))


def study_catalog(study: Study) -> Catalog:
    if study.catalog is not None:
        return load_catalog(study.catalog)
    return Catalog(CatalogItem(item.item_id, item.title) for item in study.items.all())


def mentioned_items(text: str, catalog: Catalog) -> tuple[str, ...]:
    """The ids of the catalog items ``text`` names, in order of appearance, repeats kept."""
    found: list[tuple[int, str]] = []
    matched: set[str] = set()
    # Where each name was last found, so that a repeated title takes its next occurrence.
    cursor: dict[str, int] = {}
    for mention in mentions_in_text(text):
        item = catalog.resolve(mention)
        if item is not None:
            at = text.find(mention.name, cursor.get(mention.name, 0))
            cursor[mention.name] = at + 1
            found.append((at, item.id))
            matched.add(title_key(mention.name))
    for match in _MARKED.finditer(text):
        title = (match[1] if match[1] is not None else match[2]).strip()
        # A curly-quoted Latin title was found above already.
        if match[2] is not None and title_key(split_year(title)[0]) in matched:
            continue
        item = catalog.find(*split_year(title))
        if item is not None:
            found.append((match.start(), item.id))
    return tuple(item_id for _, item_id in sorted(found, key=lambda pair: pair[0]))


def catalog_warning(study: Study) -> str:
    """Why the study's catalog does not fit its items, or "" when it does (or there is none)."""
    if study.catalog is None:
        return ""
    match = catalog_match(study, study.catalog)
    if match.complete:
        return ""
    return _(
        "%(missing)d of the study's %(items)d item ids are not in catalog %(catalog)s (for "
        "example %(ids)s): mentions of those items are never removed as prompt items."
    ) % {
        "missing": match.items - match.matched,
        "items": match.items,
        "catalog": study.catalog.name,
        "ids": ", ".join(match.unmatched),
    }
