"""Time an LLM evaluator job over 2,000 transcripts, then a second job over the same ones.

The strict fake OpenAI-compatible endpoint of the test suite (``tests/fake_openai.py``) runs
in this process and answers each request after a delay, like a remote model (200 ms unless
``--delay`` says otherwise); the job keeps 16 requests in flight (``--concurrency``). The
second job is new but asks exactly the same questions, so the response cache must answer all
of them: it makes no request at all. Each run scores every transcript on the CONCEPT rubric
(nine questions a dialogue, in one request). Run from the repository root:
``python bench/llm_jobs.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing.servers import TemporaryDatabase

TRANSCRIPTS = 2_000
DELAY = 0.2
CONCURRENCY = 16


def transcript(number: int) -> dict[str, Any]:
    accepted = number % 3 == 0
    return {
        "id": f"bench-{number:05d}",
        "system": ("kbrd", "barcor", "unicrs", "chatgpt")[number % 4],
        "lang": "zh" if number % 5 == 0 else "en",
        "preferences": ["science fiction", "comedy"],
        "turns": [
            {"role": "user", "text": "Hi! Something funny with a bit of science fiction?"},
            {"role": "system", "text": "Do you like older films, or only recent ones?"},
            {"role": "user", "text": "Anything, as long as it is light."},
            {
                "role": "system",
                "text": f"Try Film {number} (1999): a quick, witty space caper.",
                "items": [f"Film {number} (1999)"],
            },
            {"role": "user", "text": "Sounds great. [END]" if accepted else "Not for me."},
        ],
        "outcome": {
            "accepted": accepted,
            "accepted_items": [f"Film {number} (1999)"] if accepted else [],
            "turn": 5 if accepted else None,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=int, default=TRANSCRIPTS)
    parser.add_argument("--delay", type=float, default=DELAY, help="seconds per answer")
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY)
    args = parser.parse_args()

    with TemporaryDatabase() as database:
        os.environ["DATABASE_URL"] = database.url
        os.environ.setdefault("DEBUG", "1")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        from annotation.imports.rows import import_rows
        from annotation.llm_evaluator.job import create_scoring_job
        from annotation.models import Campaign, LLMScore
        from evalsite import jobs
        from tests.fake_openai import Answer, FakeOpenAI, reply, slow

        # DEBUG=1 only stands in for a SECRET_KEY here: in debug mode Django would also keep
        # every query, which production does not do.
        settings.DEBUG = False
        call_command("migrate", verbosity=0)
        import_rows("LLM bench", (transcript(n) for n in range(args.transcripts)))
        campaign = Campaign.objects.get(name="LLM bench")

        def answer(body: dict[str, Any]) -> Answer:
            keys = re.findall(r'"([a-z_]+)": \{"rationale"', body["messages"][1]["content"])
            verdicts = {key: {"rationale": f"Because of {key}.", "score": 1} for key in keys}
            return slow(args.delay, reply(json.dumps(verdicts)))

        server = FakeOpenAI().start()
        server.script(*[answer] * args.transcripts)
        # Prices as for a small hosted model; the fake reports 10 prompt and 5 completion
        # tokens an answer, so the cost shows how it is summed rather than a real bill.
        llm = {
            "base_url": server.base_url,
            "model": server.model,
            "concurrency": args.concurrency,
            "price_per_1k_prompt": "0.00015",
            "price_per_1k_completion": "0.0006",
        }
        try:
            started = time.perf_counter()
            first = jobs.run(create_scoring_job(campaign, llm))
            seconds = time.perf_counter() - started
            requests = len(server.requests)
            started = time.perf_counter()
            rerun = jobs.run(create_scoring_job(campaign, llm))
            rerun_seconds = time.perf_counter() - started
            requests_on_rerun = len(server.requests) - requests
        finally:
            server.stop()
        if server.violations or first.status != "done" or rerun.status != "done":
            raise SystemExit(f"the run broke: {server.violations or first.errors or rerun.errors}")
        floor = args.transcripts * args.delay / args.concurrency
        print(
            f"database: {database.url.split('://')[0]}; {args.transcripts:,} transcripts, "
            f"{args.delay * 1000:.0f} ms an answer, {args.concurrency} at once"
        )
        print(
            f"first job:  {seconds:.1f} s ({args.transcripts / seconds:.0f} transcripts/s; "
            f"{floor:.1f} s is the floor), {requests} requests, at most "
            f"{server.max_in_flight} in flight, {LLMScore.objects.count():,} scores stored, "
            f"cost {first.result['cost']}"
        )
        print(
            f"second job: {rerun_seconds:.1f} s, {requests_on_rerun} requests, "
            f"{rerun.result['cache_hits']} answers from the cache, cost {rerun.result['cost']}"
        )
        print(
            json.dumps(
                {
                    "transcripts": args.transcripts,
                    "seconds": round(seconds, 2),
                    "requests": requests,
                    "requests_on_rerun": requests_on_rerun,
                    "cache_hits_on_rerun": rerun.result["cache_hits"],
                }
            )
        )


if __name__ == "__main__":
    main()
