"""PostgreSQL connections come from a bounded pool; only SQLite keeps persistent connections."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from testing.servers import Daphne, TemporaryDatabase
from tests.evalsite.test_settings import load_settings


def test_postgresql_gets_a_pool_sized_from_the_environment_and_no_persistent_connections() -> None:
    result = load_settings(
        DEBUG="1",
        DATABASE_URL="postgres://u@127.0.0.1:5432/x",
        EVALSITE_DB_POOL_MIN="3",
        EVALSITE_DB_POOL_MAX="7",
    )
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["options"]["pool"]["min_size"] == 3
    assert values["options"]["pool"]["max_size"] == 7
    assert values["conn_max_age"] == 0
    sqlite = json.loads(load_settings(DEBUG="1").stdout)
    assert "pool" not in sqlite["options"] and sqlite["conn_max_age"] > 0


def test_a_pool_smaller_than_its_minimum_is_refused() -> None:
    result = load_settings(DEBUG="1", EVALSITE_DB_POOL_MIN="5", EVALSITE_DB_POOL_MAX="2")
    assert result.returncode != 0
    assert "EVALSITE_DB_POOL_MIN" in result.stderr


@pytest.mark.services
def test_a_thousand_requests_do_not_grow_the_connections(services: dict[str, str]) -> None:
    import psycopg

    with TemporaryDatabase(like=services["DATABASE_URL"]) as database:
        env = database.env(EVALSITE_DB_POOL_MIN="2", EVALSITE_DB_POOL_MAX="4")
        name = database.url.rsplit("/", 1)[1]

        def connections() -> int:
            with psycopg.connect(services["DATABASE_URL"], autocommit=True) as admin:
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)
                ).fetchone()
            assert row is not None
            return int(row[0])

        peak = 0
        done = threading.Event()

        def watch() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, connections())
                time.sleep(0.05)

        def get(_number: int) -> int:
            with urllib.request.urlopen(f"{server.url}/healthz", timeout=30) as response:
                return int(response.status)

        with Daphne(env) as server, ThreadPoolExecutor(17) as pool:
            watcher = pool.submit(watch)
            statuses = list(pool.map(get, range(100)))
            after_100 = connections()
            statuses += list(pool.map(get, range(900)))
            after_1000 = connections()
            done.set()
            watcher.result()
        assert statuses == [200] * 1000  # every request found a connection
        # Sixteen requests at a time share the pool's four connections; none is left behind.
        assert after_1000 <= after_100 <= 4
        assert peak <= 4
