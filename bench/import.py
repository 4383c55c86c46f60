"""Time transcript imports of 10,000 and 100,000 generated transcripts, and the write lock.

Each file is JSONL in the documented shape (six turns, a persona, preferences and an
outcome per transcript). The import validates the whole file, spooling the rows, before
one short write transaction; the figures show how long that transaction held the database
(the lock), next to the total time. The 100,000 file is then imported again, which updates
every transcript (the re-import path). Run from the repository root:
``python bench/import.py``.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing.servers import TemporaryDatabase

SIZES = (10_000, 100_000)
EMOTIONS = ("Boredom", "Curiosity", "Trust", "Delight", "Confusion", "Anticipation")
AGE_GROUPS = ("Children", "Teens", "Adults", "Seniors")
SYSTEMS = ("kbrd", "barcor", "unicrs", "chatgpt")


def transcript(number: int) -> dict[str, Any]:
    accepted = number % 3 == 0
    return {
        "id": f"gen-{number:06d}",
        "system": SYSTEMS[number % len(SYSTEMS)],
        "dataset": "redial_eval" if number % 2 else "opendialkg_eval",
        "lang": "en",
        "persona": {
            "emotion": EMOTIONS[number % len(EMOTIONS)],
            "age_group": AGE_GROUPS[number % len(AGE_GROUPS)],
            "text": "You like to take your time before you accept a recommendation.",
        },
        "preferences": ["action", "adventure", "science fiction"],
        "turns": [
            {"role": "user", "text": "Hello"},
            {"role": "system", "text": "Hi! What kind of movies do you like?"},
            {
                "role": "user",
                "text": "Fast, funny adventures with a bit of science fiction.",
                "feelings": "I hope it asks me something before it recommends.",
            },
            {
                "role": "system",
                "text": f"Have you seen Film {number} (1999)? It is a quick, witty space caper.",
                "items": [f"Film {number} (1999)"],
            },
            {
                "role": "user",
                "text": "That sounds great, I'll watch it. [END]" if accepted else "Not for me.",
            },
            {"role": "system", "text": "Enjoy the film!"},
        ],
        "outcome": {
            "accepted": accepted,
            "accepted_items": [f"Film {number} (1999)"] if accepted else [],
            "turn": 5 if accepted else None,
        },
    }


def write_file(folder: Path, count: int) -> Path:
    path = folder / f"transcripts-{count}.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for number in range(count):
            handle.write(json.dumps(transcript(number)) + "\n")
    return path


def peak_rss_mb() -> float:
    # ru_maxrss is in kibibytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    with TemporaryDatabase() as database, tempfile.TemporaryDirectory() as folder:
        os.environ["DATABASE_URL"] = database.url
        os.environ.setdefault("DEBUG", "1")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        # DEBUG=1 only stands in for a SECRET_KEY here: in debug mode Django would also keep
        # and quote every query, which is neither what production does nor what is measured.
        settings.DEBUG = False

        from annotation.imports.formats import import_transcripts

        call_command("migrate", verbosity=0)
        print(f"database: {database.url.split('://')[0]}; baseline RSS {peak_rss_mb():.0f} MB")
        runs: list[dict[str, Any]] = []
        plan = [(size, f"bench {size}") for size in SIZES] + [(SIZES[-1], f"bench {SIZES[-1]}")]
        for size, campaign in plan:
            path = write_file(Path(folder), size)
            megabytes = path.stat().st_size / 2**20
            started = time.perf_counter()
            result = import_transcripts(path, campaign, format="jsonl")
            seconds = time.perf_counter() - started
            run = {
                "transcripts": size,
                "reimport": result.updated == size,
                "file_mb": round(megabytes, 1),
                "seconds": round(seconds, 2),
                "rows_per_s": round(size / seconds),
                "validate_seconds": round(result.validate_seconds, 2),
                "lock_seconds": round(result.lock_seconds, 2),
                "peak_rss_mb": round(peak_rss_mb(), 1),
            }
            runs.append(run)
            label = "re-import" if run["reimport"] else "import"
            print(
                f"{label:>9} {size:>7,} transcripts ({megabytes:.0f} MB): {seconds:6.2f} s, "
                f"{run['rows_per_s']:>6,} rows/s; validating {run['validate_seconds']} s, "
                f"write transaction (lock) {run['lock_seconds']} s; "
                f"peak RSS so far {run['peak_rss_mb']} MB"
            )
            path.unlink()
        largest = next(run for run in runs if run["transcripts"] == SIZES[-1])
        print(json.dumps({**largest, "runs": runs}))


if __name__ == "__main__":
    main()
