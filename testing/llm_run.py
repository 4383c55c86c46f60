"""One LLM scoring run shared by job worker processes, one of them killed halfway, counted.

The test of split jobs and ``bench/llm_jobs.py`` both use it. The fake OpenAI endpoint of the
test suite (``tests/fake_openai.py``) answers in this process and notes when each request for
each transcript arrived, and which worker sent it (the worker process whose open socket has the
request's client port, looked up while the request is read). Halfway through the run, a worker
that holds a part is stopped (SIGSTOP, so that it writes and sends nothing more), the
transcripts scored so far are noted, and it is killed. Then every request is classed:

- ``resent_in_flight``: the one repeat of a transcript of the killed worker's part that the
  killed worker had asked and whose answer it had not stored: the answer died with the worker.
  Who asked is told by the sender, not by when the request arrived: a request sent just before
  the stop may be read by the fake endpoint after it, when its sender is gone; a request no
  surviving worker sent is the killed worker's;
- ``duplicate_requests``: every other repeat, above all a request about a transcript whose
  answer was already stored;
- ``lost_items``: transcripts with no score when the job is done.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent
FILM = re.compile(r"Film (\d+) \(1999\)")


def transcript(number: int) -> dict[str, Any]:
    """A short recommendation dialogue about ``Film <number>``, as an import row."""
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


class WorkerProcess:
    """A ``testing.job_worker`` process against the database at ``env["DATABASE_URL"]``."""

    def __init__(self, env: dict[str, str]) -> None:
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - kept open for the process
            "w+", prefix="job-worker-", suffix=".log", delete=False
        )
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "testing.job_worker",
                "--no-startup-delay",
                "--interval",
                "0.05",
                "--queue-name",
                "*",
            ],
            cwd=BASE_DIR,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.pid = self.process.pid

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the job worker exited early:\n{self.log()}")
            if "Starting worker" in self.log():
                return
            time.sleep(0.05)
        raise RuntimeError(f"the job worker did not start:\n{self.log()}")

    def log(self) -> str:
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self._log.close()
        Path(self._log.name).unlink(missing_ok=True)


def worker_env(database_url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url,
            "DEBUG": "1",
            "PYTHONUNBUFFERED": "1",
            "JOB_RUNNER": "worker",
            "JOB_REAP_MILLISECONDS": "200",
        }
    )
    env.update(extra)
    return env


@dataclass
class RequestLog:
    """When each request about each film arrived at the fake endpoint."""

    delay: float
    times: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    senders: dict[int, list[int | None]] = field(default_factory=lambda: defaultdict(list))
    workers: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any]) -> Any:
        from tests.fake_openai import client_port, reply, slow

        prompt = body["messages"][1]["content"]
        found = FILM.search(prompt)
        film = int(found.group(1)) if found else -1
        arrived = time.time()
        sender = sender_of(client_port(), self.workers)
        with self.lock:
            self.times[film].append(arrived)
            self.senders[film].append(sender)
        keys = re.findall(r'"([a-z_]+)": \{"rationale"', prompt)
        verdicts = {key: {"rationale": f"Because of {key}.", "score": 1} for key in keys}
        return slow(self.delay, reply(json.dumps(verdicts)))


@dataclass(frozen=True)
class Figures:
    transcripts: int
    seconds: float
    requests: int
    duplicate_requests: int
    resent_in_flight: int
    lost_items: int
    killed_worker_parts: int
    parts_taken_over: int

    def as_json(self) -> str:
        return json.dumps(asdict(self))


def _films_scored(campaign_id: int, evaluator: str) -> set[int]:
    from annotation.models import Transcript

    ids = Transcript.objects.filter(
        campaign_id=campaign_id, llm_scores__evaluator=evaluator
    ).values_list("external_id", flat=True)
    return {int(external.split("-")[1]) for external in ids}


def run_on_workers(
    job_id: int,
    *,
    transcripts: int,
    log: RequestLog,
    workers: list[WorkerProcess],
    kill_halfway: bool = True,
    timeout: float = 120,
) -> Figures:
    """Queue the scoring job, kill a worker holding a part once half is scored, count."""
    from evalsite import jobs
    from evalsite.models import Job, JobPart

    log.workers = [worker.pid for worker in workers]
    job = Job.objects.get(pk=job_id)
    evaluator = str(job.params["evaluator"])
    campaign_id = int(job.params["campaign"])
    started = time.perf_counter()
    jobs.start(job)
    stored_at_kill: set[int] = set()
    victim_films: set[int] = set()
    survivors = set(log.workers)
    victim_parts: list[int] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.status in {Job.Status.DONE, Job.Status.FAILED}:
            break
        if kill_halfway and not victim_parts and job.done * 2 >= transcripts:
            victim_parts, survivors, stored_at_kill = _kill_one(job, workers)
            victim_films = _films_of_parts(campaign_id, job.parts, victim_parts)
        time.sleep(0.02)
    seconds = time.perf_counter() - started
    if job.status not in {Job.Status.DONE, Job.Status.FAILED}:
        raise RuntimeError(f"the job did not finish in {timeout} s: {job.status} {job.message}")
    duplicates = resent = 0
    with log.lock:
        asked = {film: list(senders) for film, senders in log.senders.items()}
    for film, senders in asked.items():
        repeats = len(senders) - 1
        if (
            repeats
            and film in victim_films
            and film not in stored_at_kill
            and any(sender not in survivors for sender in senders)
        ):
            resent += 1
            repeats -= 1
        duplicates += repeats
    scored = _films_scored(campaign_id, evaluator)
    return Figures(
        transcripts=transcripts,
        seconds=round(seconds, 2),
        requests=sum(len(times) for times in log.times.values()),
        duplicate_requests=duplicates,
        resent_in_flight=resent,
        lost_items=len(set(range(transcripts)) - scored),
        killed_worker_parts=len(victim_parts),
        parts_taken_over=JobPart.objects.filter(job=job, attempts__gt=1).count(),
    )


def _kill_one(job: Any, workers: list[WorkerProcess]) -> tuple[list[int], set[int], set[int]]:
    """Stop the worker of a part under way, note its parts and what is stored, and kill it.

    Returns the killed worker's parts, the pids of the workers left, and the films stored.
    """
    from evalsite.models import JobPart

    by_pid = {str(worker.pid): worker for worker in workers}
    while True:
        running = JobPart.objects.filter(job=job, status=JobPart.Status.RUNNING)
        for part in running:
            victim = by_pid.get(part.worker.rsplit(":", 1)[-1])
            # Mid-part: some of its items stored, more to come, requests in flight.
            if victim is None or not (
                part.total and part.total * 0.25 <= part.done < part.total * 0.8
            ):
                continue
            os.kill(victim.pid, signal.SIGSTOP)
            parts = list(
                JobPart.objects.filter(
                    job=job, worker=part.worker, status=JobPart.Status.RUNNING
                ).values_list("index", flat=True)
            )
            stored = _films_scored(int(job.params["campaign"]), str(job.params["evaluator"]))
            victim.kill()
            return parts, {worker.pid for worker in workers if worker is not victim}, stored
        time.sleep(0.01)


def sender_of(port: int, pids: list[int]) -> int | None:
    """Which of the processes ``pids`` holds the socket with local port ``port``, if any."""
    return next((pid for pid in pids if port in local_ports(pid)), None)


def local_ports(pid: int) -> set[int]:
    """The local TCP ports of the sockets process ``pid`` holds open (Linux /proc)."""
    inodes = set()
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:  # the process is gone
        return set()
    for fd in descriptors:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def _films_of_parts(campaign_id: int, parts: int, indexes: list[int]) -> set[int]:
    from annotation.models import Transcript

    return {
        int(external.split("-")[1])
        for pk, external in Transcript.objects.filter(campaign_id=campaign_id).values_list(
            "pk", "external_id"
        )
        if pk % parts in indexes
    }
