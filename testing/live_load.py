"""What the live-chat benchmarks share: a judge's utterances, the judge's sessions, production-like
settings, a watch on PostgreSQL's connections, and the percentile they report."""

from __future__ import annotations

import threading
import time

UTTERANCES = [
    "我想订一张明天从北京去上海的机票",
    "上午或者中午",
    "有没有更便宜的",
    "经济舱",
    "好的",
    "我还想订上海的酒店",
    "住两晚",
    "好的",
]


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile ``q`` (0-100) of ``values``; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


PRODUCTION = {
    # Served as in production (docs/deployment.md): no per-query logging of DEBUG.
    "DEBUG": "0",
    "SECRET_KEY": "live-capacity-benchmark-only",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
}

SETUP = """
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import Group, User
from django.contrib.sessions.backends.db import SessionStore
from liveeval.models import ChatSession, DialogueSystem
judge = User.objects.create_user("capacity-judge")
judge.groups.add(Group.objects.get(name="judges"))
reference = DialogueSystem.objects.get(slug="reference")
rows = ChatSession.objects.bulk_create(
    ChatSession(system=reference, kind="judged", user=judge, lang="zh", today="%(today)s",
                status="open")
    for _ in range(%(sessions)d)
)
store = SessionStore()
store[SESSION_KEY] = str(judge.pk)
store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
store[HASH_SESSION_KEY] = judge.get_session_auth_hash()
store.create()
ids = list(ChatSession.objects.filter(user=judge).values_list("pk", flat=True))
print(json.dumps({"ids": ids, "cookie": settings.SESSION_COOKIE_NAME + "=" + store.session_key}))
"""


class ConnectionWatch:
    """Samples PostgreSQL's connections to one database, for the peak."""

    def __init__(self, admin_url: str, name: str) -> None:
        self.admin_url, self.name = admin_url, name
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ConnectionWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as admin:
            while not self._stop.is_set():
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (self.name,)
                ).fetchone()
                self.peak = max(self.peak, int(row[0]) if row else 0)
                time.sleep(0.2)
