"""Task cards: loading them from fixtures and checking their shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from liveeval.models import DIALOGUE_LANGUAGES, TaskCard

DEFAULT_TASK_CARDS = Path(settings.BASE_DIR) / "fixtures" / "task_cards.json"
REQUIRED = (
    "key",
    "title_zh",
    "title_en",
    "description_zh",
    "description_en",
    "goal",
    "turn_penalty",
)


LANGUAGES = [code for code, _label in DIALOGUE_LANGUAGES]


class TaskCardError(ValueError):
    pass


def read_task_cards(path: Path) -> list[dict[str, Any]]:
    """Read and validate a task-card file; the error names the card and the field."""
    from liveeval.booking.goal_validation import validate_goal

    try:
        cards = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskCardError(f"{path}: {exc}") from None
    if not isinstance(cards, list):
        raise TaskCardError(f"{path}: expected a JSON list of task cards")
    seen: set[str] = set()
    for index, card in enumerate(cards):
        where = f"{path.name} card {index + 1}"
        if not isinstance(card, dict):
            raise TaskCardError(f"{where}: expected an object")
        for key in REQUIRED:
            if key not in card:
                raise TaskCardError(f"{where}: missing field {key!r}")
        if card["key"] in seen:
            raise TaskCardError(f"{where}: duplicate key {card['key']!r}")
        seen.add(card["key"])
        if not isinstance(card["turn_penalty"], int) or card["turn_penalty"] < 1:
            raise TaskCardError(f"{where} ({card['key']}): turn_penalty must be a positive integer")
        if card.get("lang", "zh") not in LANGUAGES:
            raise TaskCardError(
                f"{where} ({card['key']}): lang must be one of {', '.join(LANGUAGES)}; "
                f"got {card['lang']!r}"
            )
        try:
            validate_goal(card["goal"])
        except ValueError as exc:
            raise TaskCardError(f"{where} ({card['key']}): goal: {exc}") from None
    return cards


def load_task_cards(path: Path = DEFAULT_TASK_CARDS) -> tuple[int, int]:
    """Create or update task cards from a file; returns (created, updated)."""
    cards = read_task_cards(path)
    created = updated = 0
    with transaction.atomic():
        for card in cards:
            _, was_created = TaskCard.objects.update_or_create(
                key=card["key"],
                defaults={
                    **{field: card[field] for field in REQUIRED[1:]},
                    "lang": card.get("lang", "zh"),
                },
            )
            created += was_created
            updated += not was_created
    return created, updated
