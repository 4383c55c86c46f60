"""The SMP2018 Task 1 endpoint protocol: batches of sentences out, results in.

EvalSite POSTs ``{"sentencesList": [{"id": …, "content": …}]}`` and expects
``{"resultsList": [{"id": …, "result": LABEL}]}``. Each batch mixes health-check items in with
the test utterances: they look like any other item (a sentence of the track's train or dev split
under its own id), so a server cannot tell them apart, and their answers say
whether the server answers sensibly at all. Health-check answers are never scored.

A batch with no answer in time, an HTTP error, a body that is not JSON or no ``resultsList``
fails as a whole: its test items count as wrong, and the batch is listed. The answer must be
complete within the batch's timeout (a deadline, not a limit per read, so a server that
drip-feeds its answer cannot hold a worker) and at most `MAX_ANSWER_BYTES` long; JSON nested too
deeply to read fails the batch too. A failure is kept as a `Failure`: a cause and its detail,
for the coordinators; the team reads the same words for every cause ("no usable answer"), so
the page is no probe of what the server's network holds. Within a good answer, an item left
out or answered with a label outside the track's label set counts as wrong too.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from evalsite.endpoint_addresses import AddressRefused

DEFAULT_BATCH_SIZE = 50
DEFAULT_TIMEOUT = 4.0
HEALTH_CHECKS_PER_BATCH = 2
# An answer to a batch of 50 is a few kB; this is ample, and bounds what a worker holds.
MAX_ANSWER_BYTES = 1024 * 1024


class Cause:
    """Why a batch failed, as kept in ``Submission.failed_batches``."""

    LATE = "late"
    TOO_LONG = "too_long"
    NESTED = "nested"
    NOT_JSON = "not_json"
    NO_RESULTS = "no_results"
    HTTP_STATUS = "http_status"
    UNREACHABLE = "unreachable"
    REFUSED_ADDRESS = "refused_address"


@dataclass(frozen=True)
class Failure:
    """Why a batch failed (a `Cause`), with its detail: the seconds, the status, the error."""

    cause: str
    detail: str = ""


@dataclass(frozen=True)
class Item:
    id: str
    content: str
    # The expected label of a health-check item; None for a test utterance.
    health_label: str | None = None


@dataclass(frozen=True)
class BatchResult:
    """What one batch brought back: labels by id, or why it failed."""

    answers: dict[str, str]
    failure: Failure | None = None


def plan_batches(
    tests: Sequence[tuple[str, str]],
    health: Sequence[tuple[str, str, str]],
    *,
    batch_size: int,
    seed: int,
) -> list[list[Item]]:
    """Test items (id, content) in batches, each with health checks (id, content, label) mixed in.

    Health checks are train or dev utterances under their own ids, which never clash with test
    ids (an id is in one split of a track only).
    """
    generator = random.Random(seed)
    batches: list[list[Item]] = []
    for start in range(0, len(tests), batch_size):
        batch = [Item(uid, content) for uid, content in tests[start : start + batch_size]]
        checks = generator.sample(list(health), min(HEALTH_CHECKS_PER_BATCH, len(health)))
        batch += [Item(uid, content, label) for uid, content, label in checks]
        generator.shuffle(batch)
        batches.append(batch)
    return batches


def request_body(batch: Sequence[Item]) -> dict[str, Any]:
    return {"sentencesList": [{"id": item.id, "content": item.content} for item in batch]}


def read_answer(body: Any, batch: Sequence[Item], labels: Sequence[str]) -> BatchResult:
    if not isinstance(body, dict) or not isinstance(body.get("resultsList"), list):
        return BatchResult({}, Failure(Cause.NO_RESULTS))
    asked = {item.id for item in batch}
    known = set(labels)
    answers: dict[str, str] = {}
    for entry in body["resultsList"]:
        if not isinstance(entry, dict):
            continue
        uid, result = str(entry.get("id", "")), entry.get("result")
        if uid in asked and isinstance(result, str) and result in known:
            answers.setdefault(uid, result)
    return BatchResult(answers)


def send(
    client: httpx.Client, url: str, batch: Sequence[Item], labels: Sequence[str], timeout: float
) -> BatchResult:
    """POST one batch and read its answer; never raises for what the server does."""
    deadline = time.monotonic() + timeout
    late = Failure(Cause.LATE, f"{timeout:g}")
    try:
        with client.stream("POST", url, json=request_body(batch), timeout=timeout) as response:
            if response.status_code != 200:
                return BatchResult({}, Failure(Cause.HTTP_STATUS, str(response.status_code)))
            received = bytearray()
            for chunk in response.iter_bytes():
                received += chunk
                if len(received) > MAX_ANSWER_BYTES:
                    return BatchResult({}, Failure(Cause.TOO_LONG, str(MAX_ANSWER_BYTES)))
                if time.monotonic() > deadline:
                    return BatchResult({}, late)
    except httpx.TimeoutException:
        return BatchResult({}, late)
    except AddressRefused as error:
        return BatchResult({}, Failure(Cause.REFUSED_ADDRESS, str(error)))
    except httpx.HTTPError as error:
        return BatchResult({}, Failure(Cause.UNREACHABLE, f"{type(error).__name__}: {error}"))
    try:
        body = json.loads(bytes(received))
    except RecursionError:
        return BatchResult({}, Failure(Cause.NESTED))
    except ValueError:
        return BatchResult({}, Failure(Cause.NOT_JSON))
    return read_answer(body, batch, labels)
