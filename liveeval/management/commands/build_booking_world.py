from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from liveeval.booking.store import WorldInUse, build_world
from liveeval.booking.timetable import world_dates


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--start must be a date YYYY-MM-DD; got {value!r}") from None


class Command(BaseCommand):
    help = (
        "Build the booking world (cities, flights, trains, hotels) for --days days from --start. "
        "The same seed always gives the same world. Replaces the current world."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--start", help="first day of the world, YYYY-MM-DD (default: today, local time)"
        )
        parser.add_argument("--days", type=int, default=30, help="number of days (default: 30)")
        parser.add_argument("--seed", type=int, default=42, help="random seed (default: 42)")
        parser.add_argument(
            "--force",
            action="store_true",
            help="replace the world even though conversations have booked in it",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        start = _date(options["start"]) if options["start"] else timezone.localdate()
        days: int = options["days"]
        if not 1 <= days <= 366:
            raise CommandError(f"--days must be between 1 and 366; got {days}")
        try:
            summary = build_world(
                world_dates(start, days), seed=options["seed"], force=options["force"]
            )
        except WorldInUse as exc:
            raise CommandError(f"{exc}. Run again with --force to replace it.") from None
        self.stdout.write(self.style.SUCCESS(f"Booking world built: {summary}."))
