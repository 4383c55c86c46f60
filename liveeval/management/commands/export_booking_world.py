from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from liveeval.booking.export import EmptyWorld, export_world


class Command(BaseCommand):
    help = (
        "Write the booking world to a folder as CSV (UTF-8 with BOM, for Excel) and JSON, "
        "one file per table, with a README.txt describing the columns."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", required=True, type=Path, help="folder to write into")

    def handle(self, *args: Any, **options: Any) -> None:
        out: Path = options["out"]
        if out.exists() and not out.is_dir():
            raise CommandError(f"--out {out} exists and is not a folder")
        try:
            counts = export_world(out)
        except EmptyWorld as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"cannot write to {out}: {exc}") from None
        tables = ", ".join(f"{table} {rows:,}" for table, rows in counts.items())
        self.stdout.write(self.style.SUCCESS(f"Booking world written to {out} ({tables} rows)."))
