"""Endpoint runs against the example team server, run as a process of its own.

The server is told to answer batch 2 late (after the per-batch timeout) and batch 3 with broken
JSON: their items count as wrong and both batches are listed; every other batch is scored.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from evalsite import jobs
from evalsite.models import Job
from intent import datasets
from intent.endpoint.job import start_endpoint_run
from intent.endpoint.protocol import Cause, Failure, Item, read_answer
from intent.models import Submission, Team, Track
from testing.servers import free_port

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "examples" / "intent_team" / "server.py"
TIMEOUT = 1.0
# Four batches of 3 test items; each carries 2 health checks from the dev split.
BATCH = 3


def wait_for(url: str) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            request = urllib.request.Request(url, data=b'{"sentencesList": []}', method="POST")
            urllib.request.urlopen(request, timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the example server did not start at {url}")


@pytest.fixture
def server_url() -> Iterator[str]:
    port = free_port()
    # Batch numbers count the readiness probe as batch 1: late is the run's 2nd, malformed 3rd.
    process = subprocess.Popen(
        [
            sys.executable,
            str(SERVER),
            "--port",
            str(port),
            "--late",
            "3",
            "--malformed",
            "4",
            "--delay",
            str(TIMEOUT + 1.5),
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_for(url)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def endpoint_team(track: Track, team: Team, server_url: str, settings: Any) -> Team:
    # The example server runs on this host: the operator must allow loopback explicitly.
    settings.ENDPOINT_PRIVATE_NETWORKS = ["127.0.0.1/32"]
    dev = {
        "d1": {"query": "明天北京天气怎么样", "label": "weather"},
        "d2": {"query": "放一首王菲的歌", "label": "music"},
    }
    datasets.import_split(track, "dev", json.dumps(dev, ensure_ascii=False), "dev.json")
    team.endpoint_url = server_url
    team.save()
    return team


@pytest.mark.django_db(transaction=True)
def test_late_and_malformed_batches_count_as_wrong_and_are_listed(
    endpoint_team: Team, participant: User
) -> None:
    submission, job = start_endpoint_run(
        endpoint_team, participant, batch_size=BATCH, timeout=TIMEOUT
    )
    job = jobs.run(job)
    assert job.status == Job.Status.DONE, job.errors
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    assert [(b["batch"], b["items"]) for b in submission.failed_batches] == [(2, 5), (3, 5)]
    assert [(b["cause"], b["detail"]) for b in submission.failed_batches] == [
        (Cause.LATE, "1"),
        (Cause.NOT_JSON, ""),
    ]
    # 12 test ids, 6 of them in failed batches and so unanswered.
    assert len(submission.predictions) == 12
    assert sum(label is None for label in submission.predictions.values()) == 6
    # 8 health checks asked; the server answers them right by keyword in the 2 good batches.
    assert job.result["health_checks"] == {"asked": 8, "right": 2 * 2}
    assert job.done == job.total == 4
    assert submission.public_f is not None


@pytest.mark.django_db(transaction=True)
def test_a_resumed_run_continues_from_its_checkpoint(
    endpoint_team: Team, participant: User
) -> None:
    submission, job = start_endpoint_run(
        endpoint_team, participant, batch_size=BATCH, timeout=TIMEOUT
    )
    # As if the worker died after the first three batches.
    job.checkpoint = {"next_batch": 3, "health": {"asked": 6, "right": 6}}
    job.started_at = job.created_at
    job.status = Job.Status.INTERRUPTED
    job.save()
    job = jobs.resume(job, background=False)
    assert job.status == Job.Status.DONE
    submission.refresh_from_db()
    # Only the last batch was sent: its three test items are answered, nothing else.
    assert len(submission.predictions) == 3
    assert job.result["health_checks"]["asked"] == 8


def test_an_answer_with_unknown_ids_and_labels_keeps_only_what_was_asked() -> None:
    batch = [Item("1", "天气"), Item("2", "歌")]
    body = {
        "resultsList": [
            {"id": "1", "result": "weather"},
            {"id": "2", "result": "joke"},
            {"id": "9", "result": "chat"},
        ]
    }
    assert read_answer(body, batch, ("weather", "music")).answers == {"1": "weather"}
    assert read_answer({"results": []}, batch, ("weather",)).failure == Failure(Cause.NO_RESULTS)
