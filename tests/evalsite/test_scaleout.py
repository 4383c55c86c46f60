"""Two daphne processes sharing PostgreSQL and Redis behave as one site."""

from __future__ import annotations

import asyncio
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
import websockets

from testing import counting
from testing.servers import Daphne, TemporaryDatabase

COUNTING_APP = "testing.asgi:application"

pytestmark = pytest.mark.services


def _login_cookie(server: Daphne, username: str, password: str) -> str:
    """Log in through the HTTP form of ``server`` and return the session cookie."""
    import http.cookiejar
    import re
    import urllib.parse

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{server.url}/accounts/login/").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token is not None
    data = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token.group(1)}
    ).encode()
    request = urllib.request.Request(
        f"{server.url}/accounts/login/", data=data, headers={"Referer": server.url}
    )
    opener.open(request)
    return "; ".join(f"{c.name}={c.value}" for c in jar)


def test_a_job_started_on_one_worker_streams_progress_to_a_socket_on_the_other(
    services: dict[str, str],
) -> None:
    with TemporaryDatabase(like=services["DATABASE_URL"]) as database:
        env = database.env(REDIS_URL=services["REDIS_URL"])
        database.manage("migrate", "--noinput", env=env)
        database.manage("seed_demo", "--users-only", "--password", "scale-out-pass", env=env)
        job_id = counting.store_interrupted(database, env, total=40, delay=0.1)
        with Daphne(env) as first, Daphne(env, application=COUNTING_APP) as second:
            cookie = _login_cookie(first, "coordinator", "scale-out-pass")
            # A thread of its own: browser tests may leave an event loop running in this one.
            with ThreadPoolExecutor(1) as pool:
                pool.submit(
                    asyncio.run, _watch_job_across_workers(first, second, cookie, job_id)
                ).result()


async def _watch_job_across_workers(
    first: Daphne, second: Daphne, cookie: str, job_id: int
) -> None:
    import re

    # The job is started, through its Resume button, and run by the second worker.
    opener = urllib.request.build_opener()
    opener.addheaders = [("Cookie", cookie)]
    job_page = opener.open(f"{second.url}/jobs/{job_id}/").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', job_page)
    assert token is not None

    form = f"csrfmiddlewaretoken={token.group(1)}".encode()
    request = urllib.request.Request(
        f"{second.url}/jobs/{job_id}/resume/", data=form, headers={"Referer": second.url}
    )
    response = await asyncio.to_thread(opener.open, request)
    assert int(response.url.rstrip("/").rsplit("/", 1)[1]) == job_id

    # The browser watches it over a WebSocket on the first worker.
    async with websockets.connect(
        f"{first.ws_url}/ws/jobs/{job_id}/",
        additional_headers={"Cookie": cookie, "Origin": first.url},
    ) as socket_on_first:
        frames: list[str] = []
        async with asyncio.timeout(30):
            while True:
                frame = await socket_on_first.recv()
                assert isinstance(frame, str)
                frames.append(frame)
                if 'data-status="done"' in frame:
                    break
    percents = [int(p) for f in frames for p in re.findall(r'data-percent="(\d+)"', f)]
    # The first frame is the state on connect; the rest crossed from the other worker.
    assert percents[-1] == 100
    assert len(frames) >= 3, frames
    assert percents == sorted(percents)
