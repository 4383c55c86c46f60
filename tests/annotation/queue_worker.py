"""One annotator working through a campaign's queue in a process of its own.

Run by ``test_queue_processes.py`` as ``python -m tests.annotation.queue_worker``, with
DATABASE_URL naming the test database. It waits at a barrier so that all workers start
together, then takes items until none is left, skipping some, and prints one JSON line:
the transcript ids it was handed, the ones it skipped, and when it started and stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--campaign", type=int, required=True)
    parser.add_argument("--user", type=int, required=True)
    parser.add_argument("--barrier", required=True)
    parser.add_argument("--skip-every", type=int, default=7)
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from django.contrib.auth.models import User

    from annotation import queue
    from annotation.models import Assignment, Campaign

    campaign = Campaign.objects.select_related("rubric").get(pk=args.campaign)
    user = User.objects.get(pk=args.user)
    dimension = campaign.rubric.dimensions.get(key="manner")

    barrier = Path(args.barrier)
    (barrier / f"ready-{args.user}").touch()
    while not (barrier / "go").exists():
        time.sleep(0.005)

    handed: list[int] = []
    skipped: list[int] = []
    started = time.time()
    while True:
        assignment = queue.next_for(user, campaign)
        if assignment is None:
            # Items held by others may still come back to the pool through a skip.
            if not Assignment.objects.filter(
                campaign=campaign, status=Assignment.Status.HELD
            ).exists():
                break
            time.sleep(0.01)
            continue
        transcript = assignment.transcript
        handed.append(transcript.pk)
        if (transcript.pk + args.user) % args.skip_every == 0:
            queue.skip(user, transcript)
            skipped.append(transcript.pk)
        else:
            queue.submit(user, transcript, [queue.Answer(dimension, 3)], 50)
    print(
        json.dumps(
            {"handed": handed, "skipped": skipped, "started": started, "stopped": time.time()}
        )
    )


if __name__ == "__main__":
    main()
