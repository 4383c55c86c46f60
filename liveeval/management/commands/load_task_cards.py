from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from liveeval.tasks import DEFAULT_TASK_CARDS, TaskCardError, load_task_cards


class Command(BaseCommand):
    help = "Create or update task cards from a JSON file (default: fixtures/task_cards.json)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", default=str(DEFAULT_TASK_CARDS))

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            created, updated = load_task_cards(Path(options["path"]))
        except TaskCardError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Task cards: {created} created, {updated} updated.")
