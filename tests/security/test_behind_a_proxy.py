"""Behind the documented proxy, throttles count per client, and no client can aim them.

docs/deployment.md runs daphne with ``--proxy-headers`` and has nginx overwrite
``X-Forwarded-For`` with the address it saw (``$remote_addr``), so the header holds exactly one
address, the client's. Without ``--proxy-headers`` every client was nginx's 127.0.0.1, and 31
failed sign-ins on random names locked everyone out; with nginx's ``$proxy_add_x_forwarded_for``
the client wrote the first entry itself, and daphne takes the first entry.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from testing.servers import Daphne, served_database

pytestmark = pytest.mark.processes

DEPLOYMENT = Path(__file__).resolve().parents[2] / "docs" / "deployment.md"
LIMIT = 3


@pytest.fixture(scope="module")
def proxied() -> Iterator[Daphne]:
    env = {"EVALSITE_LOGIN_FAILURES_PER_ADDRESS": str(LIMIT)}
    with served_database(extra_env=env, options=("--proxy-headers",)) as (_, daphne):
        yield daphne


def sign_in(daphne: Daphne, forwarded_for: str, username: str) -> int:
    """A failed sign-in as the proxy forwards it: X-Forwarded-For set to the client."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    headers = {"X-Forwarded-For": forwarded_for}
    page = opener.open(urllib.request.Request(f"{daphne.url}/accounts/login/", headers=headers))
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.read())
    assert token is not None
    body = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": token.group(1).decode(), "username": username, "password": "x"}
    ).encode()
    request = urllib.request.Request(
        f"{daphne.url}/accounts/login/",
        data=body,
        headers={**headers, "Referer": f"{daphne.url}/accounts/login/"},
    )
    try:
        return int(opener.open(request).status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_the_deployment_recipe_overwrites_the_header_and_trusts_it() -> None:
    text = DEPLOYMENT.read_text(encoding="utf-8")
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for" not in text
    assert text.count("proxy_set_header X-Forwarded-For $remote_addr;") == 2  # HTTP and /ws/
    assert text.count("daphne --proxy-headers -b") == 2


def test_failures_of_one_client_do_not_lock_out_another(proxied: Daphne) -> None:
    statuses = [sign_in(proxied, "203.0.113.7", f"nobody{n}") for n in range(LIMIT)]
    assert statuses == [200] * LIMIT
    assert sign_in(proxied, "203.0.113.7", "nobody-else") == 429
    # Another client, through the same proxy (the same peer address), is not locked out.
    assert sign_in(proxied, "198.51.100.20", "someone") == 200
