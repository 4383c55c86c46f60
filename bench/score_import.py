"""Time imports of one LLM evaluator's scores: every scored dimension of 10,000 transcripts.

The transcripts are imported first (bench/import.py's generated shape), then the scores as
JSONL and as a long CSV, each with a short rationale, validated whole before one write. Each
file is imported twice: the second time replaces the evaluator's scores it names. Run from the
repository root: ``python bench/score_import.py``.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing.servers import TemporaryDatabase

# The transcripts' generator and the RSS reading of bench/import.py, loaded from its file.
_spec = importlib.util.spec_from_file_location(
    "import_bench", Path(__file__).with_name("import.py")
)
assert _spec is not None and _spec.loader is not None
import_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(import_bench)
write_file, peak_rss_mb = import_bench.write_file, import_bench.peak_rss_mb

TRANSCRIPTS = 10_000
CAMPAIGN = "score bench"


def score_rows(dimensions: list[tuple[str, int, int]]) -> list[dict[str, Any]]:
    rows = []
    for number in range(TRANSCRIPTS):
        for key, low, high in dimensions:
            rows.append(
                {
                    "transcript_id": f"gen-{number:06d}",
                    "dimension": key,
                    "score": low + (number + len(key)) % (high - low + 1),
                    "rationale": "The reply builds on what the user asked for.",
                }
            )
    return rows


def write_scores(folder: Path, rows: list[dict[str, Any]], format: str) -> Path:
    path = folder / f"scores.{format}"
    with path.open("w", encoding="utf-8", newline="") as handle:
        if format == "jsonl":
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        else:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return path


def main() -> None:
    with TemporaryDatabase() as database, tempfile.TemporaryDirectory() as folder:
        os.environ["DATABASE_URL"] = database.url
        os.environ.setdefault("DEBUG", "1")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        settings.DEBUG = False  # DEBUG=1 only stands in for a SECRET_KEY, as in bench/import.py

        from annotation.imports.formats import import_transcripts
        from annotation.imports.llm_scores import import_llm_scores
        from annotation.models import Campaign

        call_command("migrate", verbosity=0)
        import_transcripts(write_file(Path(folder), TRANSCRIPTS), CAMPAIGN, format="jsonl")
        campaign = Campaign.objects.get(name=CAMPAIGN)
        dimensions = [
            (d.key, d.scale_min, d.scale_max)
            for d in campaign.rubric.dimensions.scored().order_by("position")
            if d.kind == "likert"
        ]
        rows = score_rows(dimensions)
        print(f"database: {database.url.split('://')[0]}; {len(rows):,} scores per file")
        runs: list[dict[str, Any]] = []
        for format in ("jsonl", "csv"):
            path = write_scores(Path(folder), rows, format)
            for attempt in ("import", "re-import"):
                started = time.perf_counter()
                result = import_llm_scores(path, campaign, evaluator="bench-llm", format=format)
                seconds = time.perf_counter() - started
                run = {
                    "format": format,
                    "reimport": attempt == "re-import",
                    "scores": len(rows),
                    "seconds": round(seconds, 2),
                    "rows_per_s": round(len(rows) / seconds),
                    "validate_seconds": round(result.validate_seconds, 2),
                    "peak_rss_mb": round(peak_rss_mb(), 1),
                }
                runs.append(run)
                print(
                    f"{format:>5} {attempt:>9}: {seconds:6.2f} s, {run['rows_per_s']:>7,} rows/s; "
                    f"validating {run['validate_seconds']} s; peak RSS {run['peak_rss_mb']} MB"
                )
        first = runs[0]
        print(json.dumps({**first, "runs": runs}))


if __name__ == "__main__":
    main()
