"""Peak memory (RSS) of importing a 500 MB upload, against baselines from the same run.

Two uploads are generated in a temporary folder: a JSONL file of many small transcripts
(about 1.3 KB each, the shape of ``bench/import.py``) and a Concept4CRS zip (stored, not
compressed, so that the upload itself is 500 MB) of 20 KB dialogues. Each measurement runs
in a fresh process on the same temporary database, so that each peak is its own:

- ``baseline``: the process once Django and the import code are loaded (the RSS before);
- ``naive_read``: reading the file fully into memory, as an import without limits would;
- ``upload_handler``: the upload received through ``evalsite.upload_limit`` in 64 KB pieces,
  as Django's multipart parser hands it over (it goes to a temporary file);
- ``import_jsonl`` and ``import_zip``: the import itself, through
  ``annotation.imports.formats.import_transcripts``, the path every upload job takes.

Figures and ratios, no pass or fail. Run from the repository root:
``python bench/upload_memory.py`` (``--mb 50`` for a quicker, smaller run).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing.servers import TemporaryDatabase

HERE = Path(__file__).resolve()
PAD = "A long turn that a simulated user wrote, to make each dialogue twenty kilobytes. "


def rss_mb() -> float:
    """The process's resident memory now (from /proc), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mb() -> float:
    # ru_maxrss is in kibibytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def generate_jsonl(folder: Path, megabytes: int) -> tuple[Path, int]:
    """Transcripts in the shape of ``bench/import.py`` until the file holds ``megabytes``."""
    spec = importlib.util.spec_from_file_location("bench_import", HERE.parent / "import.py")
    assert spec is not None and spec.loader is not None
    shapes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shapes)
    path = folder / "upload.jsonl"
    limit = megabytes * 2**20
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        while handle.tell() < limit:
            handle.write(json.dumps(shapes.transcript(count)) + "\n")
            count += 1
    return path, count


def dialogue(number: int) -> bytes:
    context = [{"role": "user", "content": "Hello"}]
    for turn in range(24):
        role = "assistant" if turn % 2 == 0 else "user"
        context.append({"role": role, "content": f"{PAD * 10}({number}.{turn})"})
    body = {
        "dialog_id": str(number),
        "turn_id": 1,
        "simulator_dialog": {
            "dialog_id": str(number),
            "turn_id": 1,
            "context": context,
            "attributes": ["comedy"],
            "profile": ["You are easily bored by the suggestions."],
        },
    }
    return json.dumps(body).encode()


def generate_zip(folder: Path, megabytes: int) -> tuple[Path, int]:
    path = folder / "upload.zip"
    limit = megabytes * 2**20
    count = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        while path.stat().st_size < limit:
            for _ in range(200):
                name = f"kbrd/redial_eval/{count}_1_profile{count % 50}_attribute{count % 7}.json"
                archive.writestr(name, dialogue(count))
                count += 1
            archive.fp.flush()  # type: ignore[union-attr]
    return path, count


def child(case: str, path: Path) -> dict[str, Any]:
    """One measurement in this (fresh) process; returns its figures."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from django.conf import settings

    settings.DEBUG = False
    from annotation.imports.formats import import_transcripts
    from evalsite.upload_limit import LimitedUploadHandler

    before = rss_mb()
    started = time.perf_counter()
    extra: dict[str, Any] = {}
    if case == "naive_read":
        data = path.read_bytes()
        extra["bytes_read"] = len(data)
        del data
    elif case == "upload_handler":
        handler = LimitedUploadHandler()
        size = path.stat().st_size
        handler.new_file("file", path.name, "application/octet-stream", size)
        with path.open("rb") as source:
            start = 0
            while chunk := source.read(64 * 1024):
                handler.receive_data_chunk(chunk, start)
                start += len(chunk)
        handler.file_complete(start).close()
    elif case in {"import_jsonl", "import_zip"}:
        fmt = "jsonl" if case == "import_jsonl" else "concept4crs"
        result = import_transcripts(path, f"bench {case}", format=fmt)
        extra = {
            "transcripts": result.transcripts,
            "lock_seconds": round(result.lock_seconds, 2),
        }
    return {
        "case": case,
        "rss_before_mb": round(before, 1),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "seconds": round(time.perf_counter() - started, 1),
        **extra,
    }


def measure(case: str, path: Path, database: str) -> dict[str, Any]:
    env = {**os.environ, "DATABASE_URL": database, "DEBUG": os.environ.get("DEBUG", "1")}
    done = subprocess.run(
        [sys.executable, str(HERE), "--child", case, str(path)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=500, help="size of each upload (MB)")
    parser.add_argument("--child", nargs=2, metavar=("CASE", "PATH"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        print(json.dumps(child(options.child[0], Path(options.child[1]))))
        return
    with TemporaryDatabase() as database, tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "DATABASE_URL": database.url, "DEBUG": "1"}
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"], env=env, check=True
        )
        uploads = {
            "jsonl": generate_jsonl(Path(folder), options.mb),
            "zip": generate_zip(Path(folder), options.mb),
        }
        figures: dict[str, Any] = {"database": database.url.split("://")[0]}
        for kind, (path, count) in uploads.items():
            size = path.stat().st_size / 2**20
            runs = {
                case: measure(case, path, database.url)
                for case in ("baseline", "naive_read", "upload_handler", f"import_{kind}")
            }
            base = runs["baseline"]["peak_rss_mb"]
            naive = runs["naive_read"]["peak_rss_mb"]
            imported = runs[f"import_{kind}"]["peak_rss_mb"]
            handler = runs["upload_handler"]["peak_rss_mb"]
            figures[kind] = {
                "upload_mb": round(size, 1),
                "transcripts": count,
                "baseline_peak_mb": base,
                "naive_read_peak_mb": naive,
                "upload_handler_peak_mb": handler,
                "import_peak_mb": imported,
                "import_above_baseline_mb": round(imported - base, 1),
                "naive_above_baseline_mb": round(naive - base, 1),
                "import_vs_naive_above_baseline": round((imported - base) / (naive - base), 3),
                "import_seconds": runs[f"import_{kind}"]["seconds"],
                "lock_seconds": runs[f"import_{kind}"].get("lock_seconds"),
            }
            print(
                f"{kind}: {size:.0f} MB, {count:,} transcripts; peak RSS: baseline {base} MB, "
                f"naive read {naive} MB, upload handler {handler} MB, import {imported} MB "
                f"({imported - base:+.0f} MB above baseline, against {naive - base:+.0f} MB "
                f"for the naive read); import {runs[f'import_{kind}']['seconds']} s",
                flush=True,
            )
            path.unlink()
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
