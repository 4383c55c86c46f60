"""How many judge messages per second the live chat serves: its capacity, step by step.

Capacity is the highest offered rate at which no message is lost and the 99th
percentile of the time from sending a message to seeing the system's reply is at
most 250 ms. The offered rate rises in coarse steps until a step fails, then in
steps of 10 msg/s from the last passing rate, so capacity is found within 10 msg/s.
In one step, every judge holds one WebSocket and sends one message a second (the
next one waits for the reply, as a judge does), starting at a random instant.

1. One daphne on SQLite, talking to the reference system; then, in the same
   server, a storing echo (the message and an echo stored, nothing else): the ceiling.
2. Two daphne workers on PostgreSQL + Redis, the judges spread across them; the
   peak of PostgreSQL connections is sampled through the run.
3. 1,000 judges sending one message every 10 s to the two workers.

After step 1's capacity C is found, the same server is overloaded: 2 C judges each send a
message a second for ``--overload-seconds`` (60), then C / 2 judges for ``--recovery-seconds``
(60). A judge numbers each message, waits for its reply (or a stored notice), and sends the
next one at its next second, as a judge who waits for the answer does. The server bounds its
work (liveeval/overload.py): past the bound a message is kept, acknowledged, and the judge is
told the system is busy. Reported: ``acked`` (messages the server acknowledged as stored),
``lost`` (sent and never answered, nor refused with a reason), ``notices`` (messages kept
with the busy notice), ``late`` (no reply and no notice within 10 s), ``p99_ms_accepted``
(send to reply, during the overload, of the messages answered without being kept),
``p99_ms_all``, and ``recovery_s``: from the drop to half the rate, the start of the first
one-second window (by sending time) after which every window's p99 is at most 250 ms.

Step 1 also reports the server's CPU per message (user and system time of its process, read
from /proc, over the messages of the first step, at 20 msg/s for both): other work on a shared
machine delays the server, so it moves the capacity found far more than this cost.

``--hog`` runs a CPU hog beside the server for all of step 1 and the overload: a process
that spins in ``while True: pass``, pinned with the server to the same core (the last one),
as a noisy neighbour on a shared host would be.

With no environment variables it uses SQLite for step 1 and a temporary database
on PostgreSQL at 127.0.0.1:5432 and Redis db 0 at 127.0.0.1:6379 for steps 2 and 3
(``BENCH_POSTGRES_URL``, ``BENCH_REDIS_URL`` override them; ``EVALSITE_CHANNEL_LAYER``
chooses the Redis layer, docs/deployment.md). The servers run as in production, with
DEBUG off. Prints figures and a final JSON line.
Usage: .venv/bin/python bench/live_capacity.py [--only one|two|judges] [--hog]
    [--overload-seconds 60] [--recovery-seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import multiprocessing
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testing.live_load import (  # noqa: E402
    PRODUCTION,
    SETUP,
    UTTERANCES,
    ConnectionWatch,
    percentile,
)
from testing.servers import Daphne, TemporaryDatabase  # noqa: E402

P99_LIMIT_MS = 250.0
REPLY_WAIT_S = 10.0
KEPT_ANSWER_WAIT_S = 180.0
"""How long an overload judge waits for the answer to a message the server kept."""
SESSIONS = 1200


@dataclass
class Site:
    """The judges' sessions on one database and the servers that serve it."""

    servers: list[Daphne]
    cookie: str
    sessions: list[int]
    handed_out: int = 0

    def next_sessions(self, count: int) -> list[int]:
        chosen = [self.sessions[(self.handed_out + n) % len(self.sessions)] for n in range(count)]
        self.handed_out += count
        return chosen


@dataclass
class StepResult:
    rate: float
    sent: int = 0
    lost: int = 0
    latencies: list[float] = field(default_factory=list)
    unopened: dict[str, int] = field(default_factory=dict)
    """Sockets that did not open, by the client's error: their messages count as lost."""
    cpu_s: float = 0.0
    """CPU seconds the servers' processes used while the messages were sent and answered."""

    @property
    def cpu_ms_per_message(self) -> float:
        return self.cpu_s * 1000 / self.sent if self.sent else float("nan")

    @property
    def p50(self) -> float:
        return percentile(self.latencies, 50)

    @property
    def p99(self) -> float:
        return percentile(self.latencies, 99)

    @property
    def passed(self) -> bool:
        return self.lost == 0 and bool(self.latencies) and self.p99 <= P99_LIMIT_MS


def cpu_seconds(servers: list[Daphne]) -> float:
    """User and system CPU seconds used so far by the servers' processes (Linux /proc)."""
    total = 0.0
    for server in servers:
        if server.process is None:
            continue
        fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def prepare(
    database: TemporaryDatabase, env: dict[str, str], today: dt.date
) -> tuple[str, list[int]]:
    database.manage("migrate", "--noinput", env=env)
    database.manage("build_booking_world", "--start", today.isoformat(), "--days", "3", env=env)
    out = database.manage(
        "shell", "-c", SETUP % {"today": today.isoformat(), "sessions": SESSIONS}, env=env
    )
    made = json.loads(out.strip().splitlines()[-1])
    return str(made["cookie"]), [int(pk) for pk in made["ids"]]


async def one_judge(
    url: str,
    origin: str,
    cookie: str,
    messages: int,
    interval: float,
    start: asyncio.Event,
    ready: list[int],
    result: StepResult,
) -> None:
    import websockets

    pace = random.Random(url)
    try:
        socket = await websockets.connect(
            url, additional_headers={"Cookie": cookie, "Origin": origin}, open_timeout=60
        )
    except Exception as error:
        result.lost += messages
        result.unopened[type(error).__name__] = result.unopened.get(type(error).__name__, 0) + 1
        ready.append(0)
        return
    async with socket:
        await asyncio.wait_for(socket.recv(), timeout=60)  # the history
        ready.append(1)
        await start.wait()
        begin = time.perf_counter() + pace.uniform(0, interval)
        for number in range(messages):
            due = begin + number * interval
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            sent_at = time.perf_counter()
            result.sent += 1
            try:
                await socket.send(json.dumps({"message": UTTERANCES[number % len(UTTERANCES)]}))
                async with asyncio.timeout(REPLY_WAIT_S):
                    while True:
                        frame = await socket.recv()
                        if 'data-role="system"' in frame or 'data-role="notice"' in frame:
                            break
            except (TimeoutError, Exception):
                result.lost += 1
                continue
            result.latencies.append((time.perf_counter() - sent_at) * 1000)


async def run_step(
    site: Site,
    path: str,
    judges: int,
    interval: float,
    messages: int,
    rate: float,
    arrivals_per_s: float = 250.0,
) -> StepResult:
    """``judges`` open their sockets, ``arrivals_per_s`` a second, then each sends ``messages``."""
    result = StepResult(rate)
    start = asyncio.Event()
    ready: list[int] = []
    tasks = []
    for number, session_id in enumerate(site.next_sessions(judges)):
        server = site.servers[number % len(site.servers)]
        url = f"{server.ws_url}{path.format(session=session_id)}"
        tasks.append(
            asyncio.create_task(
                one_judge(url, server.url, site.cookie, messages, interval, start, ready, result)
            )
        )
        if number % 50 == 49:
            await asyncio.sleep(50 / arrivals_per_s)  # open the sockets in waves, as judges arrive
    while len(ready) < judges:
        await asyncio.sleep(0.05)
    cpu_before = cpu_seconds(site.servers)
    start.set()
    await asyncio.gather(*tasks)
    result.cpu_s = cpu_seconds(site.servers) - cpu_before
    return result


def find_capacity(
    site: Site, path: str, label: str, *, first: int, coarse: int, limit: int, seconds: int
) -> tuple[int, StepResult | None, StepResult | None]:
    """Raise the rate by ``coarse`` until a step fails, then by 10 from the last pass.

    Returns the capacity, its step, and the first step (at ``first``, passed or not).
    """

    def step(rate: int) -> StepResult:
        result = asyncio.run(run_step(site, path, rate, 1.0, seconds, rate))
        print(
            f"  {label} {rate:>4} msg/s offered: {result.sent} sent, {result.lost} lost, "
            f"p50 {result.p50:.1f} ms, p99 {result.p99:.1f} ms, "
            f"server CPU {result.cpu_ms_per_message:.2f} ms/msg"
            f" {'ok' if result.passed else 'FAIL'}",
            flush=True,
        )
        return result

    # A short unmeasured step first: imports, templates and caches warm up in the server.
    asyncio.run(run_step(site, path, 10, 1.0, 2, 10))
    best, best_result, first_result = 0, None, None
    rate = first
    while rate <= limit:
        result = step(rate)
        first_result = first_result or result
        if not result.passed:
            break
        best, best_result = rate, result
        rate += coarse
    fine = best + 10
    while fine < min(rate, limit + 1):
        result = step(fine)
        if not result.passed:
            break
        best, best_result = fine, result
        fine += 10
    return best, best_result, first_result


@dataclass
class Sent:
    """One message of the overload phase, as its judge saw it."""

    phase: str
    at: float
    """When it was sent, in seconds from the start of the overload."""
    acked: bool = False
    refused: bool = False
    noticed_s: float | None = None
    answered_s: float | None = None


@dataclass
class OverloadRun:
    messages: list[Sent] = field(default_factory=list)
    unopened: int = 0


@dataclass(frozen=True)
class Phase:
    name: str
    start: float
    """The overload's start (``time.perf_counter``), from which ``Sent.at`` counts."""
    begin: float
    end: float


async def overload_judge(
    url: str, origin: str, cookie: str, phase: Phase, run: OverloadRun
) -> None:
    """One judge: a message a second from ``begin`` to ``end``, each after the last is answered."""
    import websockets

    try:
        socket = await websockets.connect(
            url, additional_headers={"Cookie": cookie, "Origin": origin}, open_timeout=60
        )
    except Exception:
        run.unopened += 1
        return
    pace = random.Random(url + phase.name)
    due = phase.begin + pace.uniform(0, 1)
    number = 0
    async with socket:
        await asyncio.wait_for(socket.recv(), timeout=60)  # the history
        while due < phase.end:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            number += 1
            sent_at = time.perf_counter()
            message = Sent(phase.name, sent_at - phase.start)
            run.messages.append(message)
            text = UTTERANCES[number % len(UTTERANCES)]
            try:
                await socket.send(json.dumps({"message": text, "sent": number}))
                async with asyncio.timeout(KEPT_ANSWER_WAIT_S):
                    while message.answered_s is None and not message.refused:
                        frame = await socket.recv()
                        assert isinstance(frame, str)
                        seen = time.perf_counter() - sent_at
                        if f'data-sent="{number}" data-outcome="stored"' in frame:
                            message.acked = True
                        elif f'data-sent="{number}" data-outcome="refused"' in frame:
                            message.refused = True
                        if 'data-alert="overloaded"' in frame and message.noticed_s is None:
                            message.noticed_s = seen
                        if 'data-role="system"' in frame or 'data-role="notice"' in frame:
                            message.answered_s = seen
            except Exception:
                return  # the socket failed: this judge's unanswered message counts as lost
            due = max(due + 1.0, time.perf_counter())


async def run_overload(site: Site, capacity: int, args: argparse.Namespace) -> OverloadRun:
    run = OverloadRun()
    high, low = max(2 * capacity, 2), max(capacity // 2, 1)
    start = time.perf_counter() + 5.0  # the sockets open first
    drop = start + args.overload_seconds
    phases = (
        (Phase("over", start, start, drop), high),
        (Phase("half", start, drop, drop + args.recovery_seconds), low),
    )
    tasks = []
    for phase, judges in phases:
        for number, session_id in enumerate(site.next_sessions(judges)):
            server = site.servers[number % len(site.servers)]
            url = f"{server.ws_url}/ws/live/{session_id}/"
            tasks.append(
                asyncio.create_task(overload_judge(url, server.url, site.cookie, phase, run))
            )
    await asyncio.gather(*tasks)
    return run


def overload_figures(run: OverloadRun, args: argparse.Namespace) -> dict[str, object]:
    messages = run.messages
    answered_at_once = [
        m.answered_s * 1000
        for m in messages
        if m.phase == "over" and m.answered_s is not None and m.noticed_s is None
    ]
    everything = [m.answered_s * 1000 for m in messages if m.answered_s is not None]
    late = sum(1 for m in messages if first_word_s(m) > REPLY_WAIT_S)
    return {
        "offered_msgs_per_s": round(
            sum(1 for m in messages if m.phase == "over") / args.overload_seconds, 1
        ),
        "sent": len(messages),
        "acked": sum(m.acked for m in messages),
        "refused": sum(m.refused for m in messages),
        "lost": sum(1 for m in messages if m.answered_s is None and not m.refused),
        "notices": sum(m.noticed_s is not None for m in messages),
        "late": late,
        "max_first_word_s": finite(max((first_word_s(m) for m in messages), default=0.0)),
        "p99_ms_accepted": round(percentile(answered_at_once, 99), 1),
        "p99_ms_all": round(percentile(everything, 99), 1),
        "recovery_s": recovery_seconds(messages, args.overload_seconds),
        "sockets_not_opened": run.unopened,
    }


def finite(value: float) -> float | None:
    return round(value, 2) if value != float("inf") else None


def first_word_s(message: Sent) -> float:
    """Seconds from sending to the reply or the busy notice, whichever came first."""
    said = [s for s in (message.answered_s, message.noticed_s) if s is not None]
    return min(said) if said else float("inf")


def recovery_seconds(messages: list[Sent], drop: float) -> float | None:
    """From the drop to half the rate, the start of the first one-second window (by sending
    time) after which every window's p99 is within the limit; None if none is."""
    windows: dict[int, list[float]] = {}
    for m in messages:
        if m.phase == "half":
            latency = m.answered_s * 1000 if m.answered_s is not None else float("inf")
            windows.setdefault(int(m.at - drop), []).append(latency)
    recovered: float | None = None
    for second in sorted(windows, reverse=True):
        if percentile(windows[second], 99) > P99_LIMIT_MS:
            break
        recovered = float(second)
    return None if recovered is None else max(recovered, 0.0)


def overload(site: Site, capacity: int, args: argparse.Namespace) -> dict[str, object]:
    high, low = max(2 * capacity, 2), max(capacity // 2, 1)
    print(
        f"  overload: {high} judges for {args.overload_seconds} s, "
        f"then {low} for {args.recovery_seconds} s",
        flush=True,
    )
    figures = overload_figures(asyncio.run(run_overload(site, capacity, args)), args)
    print("  " + ", ".join(f"{key} {value}" for key, value in figures.items()), flush=True)
    return figures


def spin() -> None:
    while True:
        pass


class Hog:
    """A busy loop pinned, with the server, to one core: a noisy neighbour."""

    def __init__(self, server_pid: int) -> None:
        self.core = max(os.sched_getaffinity(0))
        self.server_pid = server_pid
        self.process = multiprocessing.get_context("fork").Process(target=spin, daemon=True)

    def __enter__(self) -> Hog:
        self.process.start()
        assert self.process.pid is not None
        os.sched_setaffinity(self.process.pid, {self.core})
        os.sched_setaffinity(self.server_pid, {self.core})
        print(f"  CPU hog running beside the server on core {self.core}", flush=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.join()


def one_worker(today: dt.date, args: argparse.Namespace) -> dict[str, object]:
    print("one daphne on SQLite", flush=True)
    with TemporaryDatabase(like="sqlite:///unused.sqlite3") as database:
        env = database.env(DJANGO_SETTINGS_MODULE="evalsite.settings", **PRODUCTION)
        env.pop("REDIS_URL", None)
        cookie, sessions = prepare(database, env, today)
        with (
            Daphne(env, application="bench.echo_asgi:application") as server,
            Hog(server.process.pid) if args.hog and server.process else contextlib.nullcontext(),
        ):
            site = Site([server], cookie, sessions)
            capacity, at, at_first = find_capacity(
                site,
                "/ws/live/{session}/",
                "reference",
                first=20,
                coarse=40,
                limit=args.limit,
                seconds=args.seconds,
            )
            overloaded = overload(site, capacity, args) if args.overload_seconds > 0 else None
            echo, _echo_at, echo_first = find_capacity(
                site,
                "/ws/storing-echo/{session}/",
                "storing echo",
                first=20,
                coarse=80,
                limit=args.echo_limit,
                seconds=args.seconds,
            )
    return {
        "capacity_msgs_per_s": capacity,
        "echo_capacity_msgs_per_s": echo,
        "p50_ms": round(at.p50, 1) if at else None,
        "p99_ms": round(at.p99, 1) if at else None,
        # The server's CPU per message in the first step, at the same rate for both: steadier
        # than capacity on a shared machine, where other work delays the server but does not
        # add to its CPU time.
        "cpu_ms_per_msg": round(at_first.cpu_ms_per_message, 2) if at_first else None,
        "echo_cpu_ms_per_msg": round(echo_first.cpu_ms_per_message, 2) if echo_first else None,
        "hog": args.hog,
        "overload": overloaded,
    }


def two_workers(today: dt.date, args: argparse.Namespace) -> tuple[dict, dict]:
    postgres = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    redis = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
    print("two daphne workers on PostgreSQL + Redis", flush=True)
    with TemporaryDatabase(like=postgres) as database:
        env = database.env(
            DJANGO_SETTINGS_MODULE="evalsite.settings", REDIS_URL=redis, **PRODUCTION
        )
        cookie, sessions = prepare(database, env, today)
        name = database.url.rsplit("/", 1)[1]
        with (
            ConnectionWatch(postgres, name) as watch,
            Daphne(env) as first,
            Daphne(env) as second,
        ):
            site = Site([first, second], cookie, sessions)
            capacity, at = 0, None
            if args.only != "judges":
                capacity, at, _first = find_capacity(
                    site,
                    "/ws/live/{session}/",
                    "two workers",
                    first=40,
                    coarse=40,
                    limit=args.limit * 2,
                    seconds=args.seconds,
                )
            two = {
                "capacity_msgs_per_s": capacity,
                "p99_ms": round(at.p99, 1) if at else None,
                "pg_connections_peak": watch.peak,
            }
            print(f"  PostgreSQL connections at peak so far: {watch.peak}", flush=True)
            judges = args.judges
            site.sessions = (
                site.sessions[:judges] if len(site.sessions) >= judges else site.sessions
            )
            print(
                f"{judges} judges arriving {args.arrivals:g} a second, "
                "then one message every 10 s each",
                flush=True,
            )
            many = asyncio.run(
                run_step(
                    site,
                    "/ws/live/{session}/",
                    judges,
                    10.0,
                    args.judge_messages,
                    judges / 10,
                    arrivals_per_s=args.arrivals,
                )
            )
            two["pg_connections_peak"] = watch.peak
            for server in (first, second):
                problems = [
                    line
                    for line in server.log().splitlines()
                    if any(word in line for word in ("Error", "error", "Timeout", "WARNING"))
                ]
                for line in problems[-5:]:
                    print(f"  server log: {line[:300]}", flush=True)
        print(
            f"  {many.sent} sent, {many.lost} lost, p50 {many.p50:.1f} ms, p99 {many.p99:.1f} ms; "
            f"sockets not opened: {many.unopened or 0}; "
            f"PostgreSQL connections at peak: {watch.peak}",
            flush=True,
        )
    return two, {
        "messages": many.sent,
        "lost": many.lost,
        "p50_ms": round(many.p50, 1),
        "p99_ms": round(many.p99, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=5, help="messages per judge in a step")
    parser.add_argument("--limit", type=int, default=300, help="highest rate tried, one worker")
    parser.add_argument("--echo-limit", type=int, default=600)
    parser.add_argument("--judges", type=int, default=1000)
    parser.add_argument("--judge-messages", type=int, default=3)
    parser.add_argument(
        "--arrivals", type=float, default=50.0, help="judges opening their socket a second"
    )
    parser.add_argument(
        "--overload-seconds",
        type=int,
        default=60,
        help="seconds at twice one worker's capacity (0: no overload phase)",
    )
    parser.add_argument(
        "--recovery-seconds", type=int, default=60, help="seconds at half the capacity after it"
    )
    parser.add_argument(
        "--hog", action="store_true", help="run a CPU hog on the server's core during step 1"
    )
    parser.add_argument(
        "--only",
        choices=["one", "two", "judges"],
        help="run one part only (judges: the 1,000 judges on two workers, without their capacity)",
    )
    args = parser.parse_args()
    today = dt.date.today()
    started = time.perf_counter()
    one = one_worker(today, args) if args.only in (None, "one") else None
    two, many = two_workers(today, args) if args.only != "one" else (None, None)
    if args.only == "judges" and two is not None:
        two = {"pg_connections_peak": two["pg_connections_peak"]}
    if one:
        capacity = float(one["capacity_msgs_per_s"] or 0)  # type: ignore[arg-type]
        echo = float(one["echo_capacity_msgs_per_s"] or 0)  # type: ignore[arg-type]
        ratio = capacity / echo if echo else 0.0
        print(f"one worker: {one['capacity_msgs_per_s']} msg/s, {ratio:.2f} of the storing echo's")
        cpu, echo_cpu = one["cpu_ms_per_msg"], one["echo_cpu_ms_per_msg"]
        if isinstance(cpu, float) and isinstance(echo_cpu, float) and cpu > 0:
            print(
                f"server CPU per message at 20 msg/s: {cpu} ms, the storing echo's "
                f"{echo_cpu} ms ({echo_cpu / cpu:.2f} of the reference path's)"
            )
    print(f"whole benchmark: {time.perf_counter() - started:.0f} s")
    print(json.dumps({"one_worker": one, "two_workers": two, "judges_1000": many}))


if __name__ == "__main__":
    main()
