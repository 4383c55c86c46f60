"""Exactly R annotations per item with 20 annotators working at once, each in its own process.

Every worker is a separate Python process with its own database connection, so a lock that
only works inside one process cannot keep them apart: only the database's locking can.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from annotation.imports.rows import import_rows
from annotation.models import Assignment, Campaign, Transcript
from annotation.rubrics import default_rubric
from tests.annotation.conftest import dialogue, person

pytestmark = pytest.mark.processes

ANNOTATORS = 20
ITEMS = 30
R = 3


def database_url() -> str:
    """The test database, as a URL the workers' settings understand."""
    config = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{config['NAME']}"
    credentials = quote(config["USER"] or "")
    if config["PASSWORD"]:
        credentials += ":" + quote(config["PASSWORD"])
    return (
        f"postgres://{credentials}@{config['HOST'] or '127.0.0.1'}:{config['PORT'] or 5432}"
        f"/{config['NAME']}"
    )


@pytest.mark.django_db(transaction=True)
def test_twenty_processes_leave_every_item_with_exactly_r_annotations(tmp_path: Path) -> None:
    campaign = Campaign.objects.create(
        name="Concurrent", rubric=default_rubric(), annotations_per_item=R
    )
    import_rows(campaign, [dialogue(f"c{n:02d}") for n in range(ITEMS)])
    people = [person(f"worker{n:02d}", "annotators") for n in range(ANNOTATORS)]
    env = {**os.environ, "DATABASE_URL": database_url(), "DEBUG": "1"}
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.annotation.queue_worker",
                "--campaign",
                str(campaign.pk),
                "--user",
                str(someone.pk),
                "--barrier",
                str(tmp_path),
            ],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for someone in people
    ]
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("ready-*"))) < ANNOTATORS:
            failed = [w for w in workers if w.poll() not in (None, 0)]
            assert not failed, failed[0].communicate()[1]
            assert time.monotonic() < deadline, "workers did not start in time"
            time.sleep(0.02)
        (tmp_path / "go").touch()
        outputs = [worker.communicate(timeout=60) for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    assert [w.returncode for w in workers] == [0] * ANNOTATORS, [err for _, err in outputs]
    reports = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]

    # No annotator was handed an item twice.
    for report in reports:
        assert len(report["handed"]) == len(set(report["handed"])), report
    # Every item ended with exactly R submitted annotations, and nothing is left held.
    submitted = Counter(
        Assignment.objects.filter(
            campaign=campaign, status=Assignment.Status.SUBMITTED
        ).values_list("transcript_id", flat=True)
    )
    items = list(Transcript.objects.filter(campaign=campaign).values_list("pk", flat=True))
    assert {pk: submitted[pk] for pk in items} == {pk: R for pk in items}
    assert not Assignment.objects.filter(status=Assignment.Status.HELD).exists()
    assert set(Transcript.objects.values_list("active_count", flat=True)) == {R}
    # Skips happened and did not count toward R.
    skipped = sum(len(report["skipped"]) for report in reports)
    assert skipped == Assignment.objects.filter(status=Assignment.Status.SKIPPED).count() > 0
    # The workers really ran at the same time.
    assert max(r["started"] for r in reports) < min(r["stopped"] for r in reports)
