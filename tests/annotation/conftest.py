"""Campaigns and transcripts for the annotation tests, written for them."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from annotation.imports.rows import import_rows
from annotation.models import Campaign, Rubric
from annotation.rubrics import default_rubric

DATA = Path(__file__).parent / "data"
CONCEPT4CRS = DATA / "concept4crs"
# One persona × attribute cell held three times (see its README.md).
CONCEPT4CRS_DUPLICATES = DATA / "concept4crs_duplicates"


def dialogue(external_id: str, **fields: Any) -> dict[str, Any]:
    """A short dialogue transcript in the JSONL shape; ``fields`` override its parts."""
    row: dict[str, Any] = {
        "id": external_id,
        "system": "kbrd",
        "dataset": "redial",
        "lang": "en",
        "persona": {"emotion": "Curiosity", "age_group": "Adults", "text": "A curious adult."},
        "preferences": ["comedy"],
        "turns": [
            {"role": "user", "text": "Any comedies?", "feelings": "Hopeful."},
            {"role": "system", "text": "Try Airplane! (1980).", "items": ["Airplane! (1980)"]},
            {"role": "user", "text": "Sure, I'll watch it. [END]"},
        ],
        "outcome": {"accepted": True, "accepted_items": ["Airplane! (1980)"], "turn": 3},
    }
    row.update(fields)
    return row


def pairwise(external_id: str, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": external_id,
        "kind": "pairwise",
        "context": [{"role": "user", "text": "A film about a loner, please."}],
        "a": {"system": "SYSTEM-A-NAME", "text": "RESPONSE-A-TEXT: Amélie (2001)."},
        "b": {"system": "SYSTEM-B-NAME", "text": "RESPONSE-B-TEXT: The Avengers (2012)."},
    }
    row.update(fields)
    return row


def person(username: str, *roles: str) -> User:
    """A user with ``roles`` and no usable password: hashing one costs a third of a second."""
    user = User.objects.create_user(username)
    for role in roles:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def rubric(db: None) -> Rubric:
    return default_rubric()


@pytest.fixture
def campaign_factory(rubric: Rubric) -> Callable[..., Campaign]:
    def make(
        name: str = "Test campaign",
        items: int = 0,
        rows: list[dict[str, Any]] | None = None,
        **fields: Any,
    ) -> Campaign:
        # Import order unless a test asks otherwise, so that tests can name the next item.
        fields.setdefault("item_order", Campaign.ItemOrder.IMPORT)
        campaign = Campaign.objects.create(name=name, rubric=rubric, **fields)
        batch = list(rows or []) + [dialogue(f"t{n:03d}") for n in range(1, items + 1)]
        if batch:
            import_rows(campaign, batch)
        return campaign

    return make


@pytest.fixture
def campaign(campaign_factory: Callable[..., Campaign]) -> Campaign:
    """Three dialogues, R = 3, open to every annotator."""
    return campaign_factory(items=3)


def concept4crs_zip(target: Path, *, catalogs: dict[str, bytes] | None = None) -> Path:
    """The Concept4CRS sample dialogues as a zip, with ``catalogs`` (file name → bytes) in its
    ``catalogs`` folder; by default the ReDial catalog made from the sample's ``items.json``."""
    if catalogs is None:
        catalogs = redial_catalog()
    with zipfile.ZipFile(target, "w") as bundle:
        for file in sorted(CONCEPT4CRS.rglob("*.json")):
            relative = file.relative_to(CONCEPT4CRS).as_posix()
            if not relative.startswith("catalogs/"):
                bundle.write(file, relative)
        for name, body in catalogs.items():
            bundle.writestr(f"catalogs/{name}", body)
    return target


def redial_catalog() -> dict[str, bytes]:
    """A Concept4CRS ReDial catalog pair built from the sample's ``items.json`` (its
    entity2id): every titled entity is a film, plus the sample's comedy, and a genre."""
    entity2id: dict[str, int] = json.loads((CONCEPT4CRS / "catalogs" / "items.json").read_text())
    entity2id = {**entity2id, "Airplane! (1980)": 3, "comedy": 4}
    id2info = {
        str(number): {"name": name, "genre": ["comedy"] if "Airplane" in name else ["sci-fi"]}
        for number, name in enumerate(name for name in entity2id if "(" in name)
    }
    return {
        "redial_entity2id.json": json.dumps(entity2id).encode(),
        "redial_id2info.json": json.dumps(id2info).encode(),
    }
