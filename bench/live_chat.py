"""Live chat under load: N judges talk to the reference system through the real consumer.

Starts its own daphne on a temporary database, then runs the same load against a
bare echo consumer in the same server, so the ratio says what storing each
message and running the reference system costs. Prints figures and a final JSON
line. Usage: .venv/bin/python bench/live_chat.py [--judges 100] [--messages 5]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testing.live_load import UTTERANCES, percentile  # noqa: E402
from testing.servers import Daphne, TemporaryDatabase  # noqa: E402


def prepare(database: TemporaryDatabase, judges: int, today: dt.date) -> list[tuple[int, str]]:
    """Migrate, build a small world, and create one open session and login per judge."""
    env = database.env()
    database.manage("migrate", "--noinput", env=env)
    database.manage("build_booking_world", "--start", today.isoformat(), "--days", "3", env=env)
    os.environ["DATABASE_URL"] = database.url
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import Group, User
    from django.contrib.sessions.backends.db import SessionStore

    from liveeval.models import ChatSession, DialogueSystem

    group = Group.objects.get(name="judges")
    reference = DialogueSystem.objects.get(slug="reference")
    logins = []
    for number in range(judges):
        user = User.objects.create_user(f"bench-judge-{number}", password=None)
        user.groups.add(group)
        session = ChatSession.objects.create(
            system=reference,
            kind=ChatSession.Kind.JUDGED,
            user=user,
            lang="zh",
            today=today,
            status=ChatSession.Status.OPEN,
        )
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        logins.append((session.pk, f"{settings.SESSION_COOKIE_NAME}={store.session_key}"))
    return logins


async def one_judge(
    url: str, cookie: str, origin: str, messages: int, interval: float, results: dict[str, list]
) -> None:
    import random

    import websockets

    # Judges do not all press Enter at the same instant: each starts somewhere in the interval.
    pace = random.Random(cookie)
    await asyncio.sleep(pace.uniform(0, interval))
    async with websockets.connect(
        url, additional_headers={"Cookie": cookie, "Origin": origin}, open_timeout=30
    ) as socket:
        if "/ws/live/" in url:
            await asyncio.wait_for(socket.recv(), timeout=30)  # the history on connect
        for number in range(messages):
            text = UTTERANCES[number % len(UTTERANCES)]
            started = time.perf_counter()
            await socket.send(json.dumps({"message": text}))
            results["sent"].append(1)
            try:
                async with asyncio.timeout(30):
                    while True:
                        frame = await socket.recv()
                        if 'data-role="system"' in frame or 'data-role="notice"' in frame:
                            break
            except TimeoutError:
                results["lost"].append(1)
                continue
            results["latencies"].append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(pace.uniform(0.5 * interval, 1.5 * interval))


async def run_load(
    server: Daphne, targets: list[tuple[str, str]], messages: int, interval: float
) -> tuple[dict[str, list], float]:
    results: dict[str, list] = {"sent": [], "lost": [], "latencies": []}
    started = time.perf_counter()
    await asyncio.gather(
        *(
            one_judge(url, cookie, server.url, messages, interval, results)
            for url, cookie in targets
        )
    )
    return results, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--judges", type=int, default=100)
    parser.add_argument("--messages", type=int, default=5, help="messages per judge")
    parser.add_argument(
        "--interval", type=float, default=2.0, help="seconds a judge waits before the next message"
    )
    args = parser.parse_args()
    today = dt.date.today()
    with TemporaryDatabase() as database:
        logins = prepare(database, args.judges, today)
        env = database.env(DJANGO_SETTINGS_MODULE="evalsite.settings")
        with Daphne(env, application="bench.echo_asgi:application") as server:
            live_targets = [(f"{server.ws_url}/ws/live/{pk}/", cookie) for pk, cookie in logins]
            live, live_seconds = asyncio.run(
                run_load(server, live_targets, args.messages, args.interval)
            )
            echo_targets = [(f"{server.ws_url}/ws/echo/", cookie) for _pk, cookie in logins]
            echo, echo_seconds = asyncio.run(
                run_load(server, echo_targets, args.messages, args.interval)
            )
        from liveeval.models import Message

        stored_user = Message.objects.filter(role="user").count()
        stored_replies = Message.objects.exclude(role="user").count()
    sent = len(live["sent"])
    lost = len(live["lost"]) + max(0, sent - stored_user) + max(0, sent - stored_replies)
    p50 = percentile(live["latencies"], 50)
    echo_p50 = percentile(echo["latencies"], 50)
    figures = {
        "judges": args.judges,
        "messages": sent,
        "lost": lost,
        "p50_ms": round(p50, 2),
        "p99_ms": round(percentile(live["latencies"], 99), 2),
        "echo_p50_ms": round(echo_p50, 2),
        "echo_p99_ms": round(percentile(echo["latencies"], 99), 2),
        "ratio_p50": round(p50 / echo_p50, 2) if echo_p50 else None,
        "msgs_per_s": round(sent / live_seconds, 1),
        "echo_msgs_per_s": round(len(echo["sent"]) / echo_seconds, 1),
    }
    print(f"reference system: {sent} messages from {args.judges} judges in {live_seconds:.1f} s")
    print(
        f"  p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms, mean "
        f"{statistics.fmean(live['latencies']) if live['latencies'] else float('nan'):.1f} ms"
    )
    print(f"  stored: {stored_user} user messages, {stored_replies} replies or notices")
    print(f"bare echo: p50 {figures['echo_p50_ms']} ms, p99 {figures['echo_p99_ms']} ms")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
