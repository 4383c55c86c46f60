"""Time the annotation queue on 100,000 transcripts holding 300,000 annotations.

The campaign (R = 5) is filled with bulk inserts: every transcript has 1 to 5 submitted
annotations (3 on average; a fifth of the items are complete) from 300 annotators, each
with one answer. Then, through
Django's test client, annotators ask for their next item (``/work/``, which runs the
queue), open it, and submit it with htmx (which stores the answers and hands out the next
item). Both a newcomer and an annotator with 5,000 items behind them are timed. The same
requests against a campaign of 1,000 transcripts show that the number of queries per
request does not grow with the data. Run from the repository root:
``python bench/annotation_queue.py``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing.servers import TemporaryDatabase

ITEMS = 100_000
SMALL_ITEMS = 1_000
ANNOTATORS = 300
R = 5
# Annotations per transcript cycle through these: 300,000 over 100,000 transcripts.
PATTERN = (1, 2, 3, 4, 5)
ROUNDS = 150
BATCH = 5_000


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def fill(campaign: Any, items: int, annotators: list[Any]) -> int:
    """Bulk-insert ``items`` transcripts and their submitted annotations; return how many."""
    from django.utils import timezone

    from annotation.models import Assignment, Response, Transcript

    manner = campaign.rubric.dimensions.get(key="manner")
    now = timezone.now()
    turns = [
        {"role": "user", "text": "Any good science fiction?"},
        {"role": "system", "text": "Try Moon (2009): quiet, clever, set on the Moon."},
        {"role": "user", "text": "Sounds good. [END]"},
    ]
    annotations = 0
    for start in range(0, items, BATCH):
        numbers = range(start, min(items, start + BATCH))
        transcripts = Transcript.objects.bulk_create(
            Transcript(
                campaign=campaign,
                external_id=f"{campaign.pk}-{n:06d}",
                system="kbrd",
                dataset="redial_eval",
                lang="en",
                preferences=["science fiction"],
                turns=turns,
                accepted=True,
                position=n + 1,
                shuffle_key=(n * 7919) % 1_000_003,
                active_count=PATTERN[n % len(PATTERN)],
            )
            for n in numbers
        )
        assignments = Assignment.objects.bulk_create(
            Assignment(
                campaign=campaign,
                transcript=transcript,
                annotator=annotators[(n + 37 * j) % len(annotators)],
                status=Assignment.Status.SUBMITTED,
                held_at=now,
                submitted_at=now,
                time_on_task_ms=30_000 + n % 60_000,
            )
            for n, transcript in zip(numbers, transcripts, strict=True)
            for j in range(transcript.active_count)
        )
        Response.objects.bulk_create(
            Response(
                assignment=assignment,
                transcript_id=assignment.transcript_id,
                dimension=manner,
                value=1 + assignment.pk % 5,
                time_on_task_ms=assignment.time_on_task_ms,
            )
            for assignment in assignments
        )
        annotations += len(assignments)
    return annotations


def answers(campaign: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        f"answer_{d.key}": d.scale_max for d in campaign.rubric.dimensions.exclude(kind="pairwise")
    }
    data["time_on_task_ms"] = 20_000
    return data


def measure(client: Any, campaign: Any, rounds: int) -> dict[str, list[float]]:
    """Next item (/work/), opening it, and submitting it, ``rounds`` times: milliseconds under
    ``<kind>_ms`` and, from one more round with queries recorded, counts under ``<kind>_q``."""
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    work = reverse("annotation:work", args=[campaign.pk])
    data = answers(campaign)
    figures: dict[str, list[float]] = {
        f"{kind}_{unit}": [] for kind in ("next", "open", "submit") for unit in ("ms", "q")
    }

    def one_round(record: Any) -> None:
        handed = record("next", client.get, work)
        assert handed.status_code == 302, handed.status_code
        item = handed["Location"]
        assert record("open", client.get, item).status_code == 200
        submitted = record("submit", client.post, item, data, HTTP_HX_REQUEST="true")
        assert submitted.status_code == 200 and "HX-Push-Url" in submitted

    def timed(kind: str, request: Any, *args: Any, **extra: Any) -> Any:
        started = time.perf_counter()
        response = request(*args, **extra)
        figures[f"{kind}_ms"].append(1000 * (time.perf_counter() - started))
        return response

    def counted(kind: str, request: Any, *args: Any, **extra: Any) -> Any:
        reset_queries()
        with CaptureQueriesContext(connection) as captured:
            response = request(*args, **extra)
        figures[f"{kind}_q"].append(len(captured))
        return response

    for _ in range(rounds):
        one_round(timed)
    one_round(counted)
    return figures


def main() -> None:
    with TemporaryDatabase() as database:
        os.environ["DATABASE_URL"] = database.url
        os.environ.setdefault("DEBUG", "1")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.contrib.auth.models import Group, User
        from django.core.management import call_command
        from django.test import Client
        from django.test.utils import setup_test_environment

        from annotation.models import Campaign
        from annotation.rubrics import default_rubric

        setup_test_environment()
        # DEBUG=1 only stands in for a SECRET_KEY here: in debug mode Django would also keep
        # and quote every query, which production does not do.
        settings.DEBUG = False
        call_command("migrate", verbosity=0)
        group = Group.objects.get_or_create(name="annotators")[0]
        annotators = User.objects.bulk_create(
            User(username=f"annotator{n:03d}") for n in range(ANNOTATORS)
        )
        group.user_set.add(*annotators)
        rubric = default_rubric()
        large = Campaign.objects.create(name="large", rubric=rubric, annotations_per_item=R)
        small = Campaign.objects.create(name="small", rubric=rubric, annotations_per_item=R)
        started = time.perf_counter()
        annotations = fill(large, ITEMS, annotators)
        fill(small, SMALL_ITEMS, annotators)
        print(
            f"database: {database.url.split('://')[0]}; {ITEMS:,} transcripts and "
            f"{annotations:,} annotations inserted in {time.perf_counter() - started:.1f} s"
        )

        def client_for(user: Any) -> Any:
            client = Client()
            client.force_login(user)
            return client

        newcomer = User.objects.create(username="newcomer")
        group.user_set.add(newcomer)
        veteran = annotators[0]
        results: dict[str, dict[str, list[float]]] = {}
        for label, user, campaign in (
            ("newcomer, 100k", newcomer, large),
            ("veteran, 100k", veteran, large),
            ("newcomer, 1k", newcomer, small),
        ):
            client = client_for(user)
            measure(client, campaign, 5)
            results[label] = measure(client, campaign, ROUNDS)
        for label, figures in results.items():
            parts = []
            for kind in ("next", "open", "submit"):
                times = figures[f"{kind}_ms"]
                parts.append(
                    f"{kind} p50 {statistics.median(times):.1f} ms, p95 "
                    f"{percentile(times, 0.95):.1f} ms, {max(figures[f'{kind}_q']):.0f} queries"
                )
            print(f"{label:>15}: " + "; ".join(parts))
        large_runs = [results["newcomer, 100k"], results["veteran, 100k"]]
        every = [t for run in large_runs for k in ("next", "submit") for t in run[f"{k}_ms"]]
        queries_large = max(
            q for run in large_runs for k in ("next", "open", "submit") for q in run[f"{k}_q"]
        )
        queries_small = max(
            q for k in ("next", "open", "submit") for q in results["newcomer, 1k"][f"{k}_q"]
        )
        print(
            f"queries per request: at most {queries_large:.0f} with {ITEMS:,} transcripts, "
            f"{queries_small:.0f} with {SMALL_ITEMS:,}"
        )
        summary: dict[str, Any] = {
            "items": ITEMS,
            "annotations": annotations,
            "p50_ms": round(statistics.median(every), 1),
            "p95_ms": round(percentile(every, 0.95), 1),
            "queries_per_request": int(queries_large),
            "queries_per_request_1k_items": int(queries_small),
            "next_p50_ms": round(
                statistics.median([t for run in large_runs for t in run["next_ms"]]), 1
            ),
            "submit_p50_ms": round(
                statistics.median([t for run in large_runs for t in run["submit_ms"]]), 1
            ),
        }
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
