"""What an import did: how many transcripts and scores it wrote, and how long it held the lock."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotation.imports.bundled_catalogs import CatalogOutcome


@dataclass
class ImportResult:
    transcripts: int = 0
    created: int = 0
    updated: int = 0
    # Annotated transcripts that got a new version (their annotated text kept as it was).
    versioned: int = 0
    llm_scores: int = 0
    ignored_files: int = 0
    # Concept4CRS: files repeating a persona × attribute cell, and how many of them were skipped.
    duplicate_cells: int = 0
    duplicates_skipped: int = 0
    validate_seconds: float = 0.0
    lock_seconds: float = 0.0
    campaign_created: bool = False
    # Concept4CRS: the item catalogs that came with the dialogues, imported or skipped.
    catalogs: list[CatalogOutcome] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "transcripts": self.transcripts,
            "created": self.created,
            "updated": self.updated,
            "versioned": self.versioned,
            "llm_scores": self.llm_scores,
            "ignored_files": self.ignored_files,
            "duplicate_cells": self.duplicate_cells,
            "duplicates_skipped": self.duplicates_skipped,
            "validate_seconds": round(self.validate_seconds, 3),
            "lock_seconds": round(self.lock_seconds, 3),
            "campaign_created": self.campaign_created,
            "catalogs": [catalog.as_dict() for catalog in self.catalogs],
        }
