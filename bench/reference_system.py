"""Reply time of the reference system, replaying the scripted judges of every task card.

Builds a booking world in a temporary database, then sends every script's utterances
through the same exchange a judge's message takes (store, reply, store), and times each
reply. Prints figures and a final JSON line. Usage: .venv/bin/python bench/reference_system.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testing.servers import TemporaryDatabase  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="times every script is replayed")
    args = parser.parse_args()
    with TemporaryDatabase() as database:
        database.manage("migrate", "--noinput")
        os.environ["DATABASE_URL"] = database.url
        os.environ.setdefault("DEBUG", "1")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
        import django

        django.setup()
        from asgiref.sync import async_to_sync

        from liveeval.booking.store import build_world
        from liveeval.booking.timetable import world_dates
        from liveeval.conversation import exchange
        from liveeval.models import ChatSession, DialogueSystem
        from tests.liveeval.scripted_judges import DEFAULT_TODAY, all_scripts

        scripts = all_scripts()
        summary = build_world(world_dates(DEFAULT_TODAY, 28))
        print(summary)
        reference = DialogueSystem.objects.get(slug="reference")
        timings: list[float] = []
        policy_timings: list[float] = []
        started = time.perf_counter()
        for _round in range(args.rounds):
            for script in scripts:
                session = ChatSession.objects.create(
                    system=reference,
                    kind=ChatSession.Kind.TALK,
                    lang=script.lang,
                    today=script.today,
                )
                for text in script.utterances:
                    began = time.perf_counter()
                    result = async_to_sync(exchange)(session.pk, text, timeout=30)
                    timings.append((time.perf_counter() - began) * 1000)
                    assert result.reply is not None and result.reply.latency_ms is not None
                    policy_timings.append(result.reply.latency_ms)
        seconds = time.perf_counter() - started

    def pct(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]

    print(f"{len(timings)} replies over {len(scripts)} scripts x {args.rounds} in {seconds:.1f} s")
    print(
        f"whole exchange: p50 {pct(timings, 50):.1f} ms, p99 {pct(timings, 99):.1f} ms, "
        f"mean {statistics.fmean(timings):.1f} ms"
    )
    print(
        f"system only:    p50 {pct(policy_timings, 50):.1f} ms, "
        f"p99 {pct(policy_timings, 99):.1f} ms"
    )
    print(
        json.dumps(
            {
                "replies": len(timings),
                "p50_ms": round(pct(timings, 50), 2),
                "p99_ms": round(pct(timings, 99), 2),
                "system_p50_ms": round(pct(policy_timings, 50), 2),
                "system_p99_ms": round(pct(policy_timings, 99), 2),
            }
        )
    )


if __name__ == "__main__":
    main()
