"""Time an LLM evaluator job over 2,000 transcripts: in this process, then on worker processes.

The strict fake OpenAI-compatible endpoint of the test suite (``tests/fake_openai.py``) runs
in this process and answers each request after a delay, like a remote model (200 ms unless
``--delay`` says otherwise); each run keeps 16 requests in flight (``--concurrency``). Each run
scores every transcript on the CONCEPT rubric (nine questions a dialogue, in one request).

- Without ``--workers``: one job run in this process, then a second job over the same
  transcripts, which the response cache must answer without a single request.
- With ``--workers N``: first the same in-process run (the baseline: one job, one process),
  then one job over the same transcripts, under another model name so that the cache answers
  nothing, split into ``--parts`` parts and run by N ``job_worker`` processes; halfway
  through, a worker holding a part is killed. The final JSON line gives the transcripts, the
  seconds, the requests, ``duplicate_requests`` (requests about a transcript whose answer was
  stored, or asked twice otherwise), ``resent_in_flight`` (requests the killed worker had in
  flight, sent again) and ``lost_items``, with the baseline's seconds and the ratio.

With no ``DATABASE_URL`` the runs use a temporary SQLite file; with a PostgreSQL URL, a
temporary database on that server. Run from the repository root:
``python bench/llm_jobs.py --workers 2``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing.llm_run import RequestLog, WorkerProcess, run_on_workers, transcript, worker_env
from testing.servers import TemporaryDatabase

TRANSCRIPTS = 2_000
DELAY = 0.2
CONCURRENCY = 16
PARTS = 4
OTHER_MODEL = "fake-model-2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=int, default=TRANSCRIPTS)
    parser.add_argument("--delay", type=float, default=DELAY, help="seconds per answer")
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY)
    parser.add_argument("--workers", type=int, default=0, help="worker processes (0: none)")
    parser.add_argument("--parts", type=int, default=PARTS, help="parts of the worker run")
    args = parser.parse_args()

    with TemporaryDatabase() as database:
        os.environ["DATABASE_URL"] = database.url
        os.environ["JOB_RUNNER"] = "worker"
        os.environ.setdefault("DEBUG", "1")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        from annotation.imports.rows import import_rows
        from annotation.models import Campaign
        from tests.fake_openai import MODEL, FakeOpenAI

        # DEBUG=1 only stands in for a SECRET_KEY here: in debug mode Django would also keep
        # every query, which production does not do.
        settings.DEBUG = False
        call_command("migrate", verbosity=0)
        import_rows("LLM bench", (transcript(n) for n in range(args.transcripts)))
        campaign = Campaign.objects.get(name="LLM bench")
        server = FakeOpenAI(models=(MODEL, OTHER_MODEL)).start()
        try:
            in_process = in_process_runs(args, campaign, server, rerun=not args.workers)
            if args.workers:
                on_workers(args, database, campaign, server, in_process)
        finally:
            server.stop()
        if server.violations:
            raise SystemExit(f"the endpoint saw broken requests: {server.violations[:3]}")


def llm_settings(args: argparse.Namespace, server: Any, model: str) -> dict[str, Any]:
    # Prices as for a small hosted model; the fake reports 10 prompt and 5 completion
    # tokens an answer, so the cost shows how it is summed rather than a real bill.
    return {
        "base_url": server.base_url,
        "model": model,
        "concurrency": args.concurrency,
        "price_per_1k_prompt": "0.00015",
        "price_per_1k_completion": "0.0006",
    }


def in_process_runs(
    args: argparse.Namespace, campaign: Any, server: Any, *, rerun: bool
) -> dict[str, Any]:
    """The job run inline in this process, in one part: what a single process does."""
    from django.conf import settings

    from annotation.llm_evaluator.job import create_scoring_job
    from annotation.models import LLMScore
    from evalsite import jobs

    settings.JOB_PARTS = 1
    log = RequestLog(delay=args.delay)
    server.script(*[log.answer] * args.transcripts)
    llm = llm_settings(args, server, server.model)
    started = time.perf_counter()
    first = jobs.run(create_scoring_job(campaign, llm))
    seconds = time.perf_counter() - started
    requests = len(server.requests)
    if first.status != "done":
        raise SystemExit(f"the in-process run broke: {first.errors[-3:]}")
    floor = args.transcripts * args.delay / args.concurrency
    print(
        f"database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}; "
        f"{args.transcripts:,} transcripts, {args.delay * 1000:.0f} ms an answer, "
        f"{args.concurrency} at once a process"
    )
    print(
        f"in process: {seconds:.1f} s ({args.transcripts / seconds:.0f} transcripts/s; "
        f"{floor:.1f} s is the floor), {requests} requests, at most "
        f"{server.max_in_flight} in flight, {LLMScore.objects.count():,} scores stored, "
        f"cost {first.result['cost']}"
    )
    figures: dict[str, Any] = {
        "transcripts": args.transcripts,
        "seconds": round(seconds, 2),
        "requests": requests,
    }
    if rerun:
        started = time.perf_counter()
        again = jobs.run(create_scoring_job(campaign, llm))
        rerun_seconds = time.perf_counter() - started
        figures["requests_on_rerun"] = len(server.requests) - requests
        figures["cache_hits_on_rerun"] = again.result["cache_hits"]
        print(
            f"second job: {rerun_seconds:.1f} s, {figures['requests_on_rerun']} requests, "
            f"{again.result['cache_hits']} answers from the cache, cost {again.result['cost']}"
        )
        print(json.dumps(figures))
    return figures


def on_workers(
    args: argparse.Namespace,
    database: TemporaryDatabase,
    campaign: Any,
    server: Any,
    in_process: dict[str, Any],
) -> None:
    from django.db import connection

    from annotation.llm_evaluator.job import create_scoring_job

    # SQLite keeps no connection across processes; a PostgreSQL one is closed so that the
    # workers and this process share the server fairly.
    connection.close()
    env = worker_env(database.url, JOB_PARTS=str(args.parts), JOB_STALE_SECONDS="30")
    workers = [WorkerProcess(env) for _ in range(args.workers)]
    try:
        for worker in workers:
            worker.wait_ready(timeout=120)
        log = RequestLog(delay=args.delay)
        server.script(*[log.answer] * (args.transcripts * 2))
        job = create_scoring_job(campaign, llm_settings(args, server, OTHER_MODEL), label="workers")
        figures = run_on_workers(
            job.pk, transcripts=args.transcripts, log=log, workers=workers, timeout=1800
        )
    finally:
        for worker in workers:
            worker.stop()
    ratio = in_process["seconds"] / figures.seconds if figures.seconds else 0.0
    print(
        f"{args.workers} workers, {args.parts} parts, one killed halfway: {figures.seconds:.1f} s "
        f"({ratio:.2f}x the in-process run), {figures.requests} requests, "
        f"{figures.resent_in_flight} re-sent from the killed worker, "
        f"{figures.duplicate_requests} duplicates, {figures.lost_items} transcripts lost, "
        f"{figures.parts_taken_over} part(s) taken over"
    )
    print(
        json.dumps(
            {
                "transcripts": figures.transcripts,
                "seconds": figures.seconds,
                "requests": figures.requests,
                "duplicate_requests": figures.duplicate_requests,
                "resent_in_flight": figures.resent_in_flight,
                "lost_items": figures.lost_items,
                "workers": args.workers,
                "in_process_seconds": in_process["seconds"],
                "speedup": round(ratio, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
