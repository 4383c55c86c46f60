"""Browser tests: Debian's chromium, driven by Playwright, against daphne.

pytest-django's ``live_server`` speaks WSGI only, so these tests serve the app
with a real daphne process on a database of its own (see ``testing.servers``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserType, Page, Playwright, sync_playwright

from testing.servers import Daphne, TemporaryDatabase, free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
DEMO_PASSWORD = "e2e-demo-password"
# Every browser test's screenshots, kept as test artefacts (ignored by git).
SHOTS = Path(__file__).resolve().parents[2] / "test-artefacts" / "screenshots"
# The served site's one named LLM credential points at a port the LLM tests start a fake on.
FAKE_LLM_PORT = free_port()
FAKE_LLM_CREDENTIAL = "fake"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": CHROMIUM_FLAGS,
        "headless": True,
    }


# Playwright's sync API keeps an event loop running in the test thread from start to stop, and
# Django refuses synchronous database work while one runs. pytest-playwright starts it once per
# session; here it lives for one module, so that the tests a pytest-xdist worker runs after a
# browser module (in any order) find no loop running.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    started = sync_playwright().start()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def browser_context_args(base_url: str) -> dict[str, Any]:
    """Every page opens on the served site (no device emulation, no video)."""
    return {"base_url": base_url}


@pytest.fixture(scope="module")
def browser_type(playwright: Playwright, browser_name: str) -> BrowserType:
    chosen: BrowserType = getattr(playwright, browser_name)
    return chosen


@pytest.fixture(scope="module")
def browser(
    browser_type: BrowserType, browser_type_launch_args: dict[str, Any]
) -> Iterator[Browser]:
    launched = browser_type.launch(**browser_type_launch_args)
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def app_server() -> Iterator[tuple[TemporaryDatabase, Daphne]]:
    """A migrated, seeded database served by daphne, shared by the browser tests."""
    with TemporaryDatabase() as database:
        env = database.env(
            EVALSITE_LLM_KEYS=f"{FAKE_LLM_CREDENTIAL}:@http://127.0.0.1:{FAKE_LLM_PORT}/v1"
        )
        database.manage("migrate", "--noinput", env=env)
        database.manage("seed_demo", "--password", DEMO_PASSWORD, env=env)
        # The served application, with the counting job kind that the job tests start.
        with Daphne(env, application="testing.asgi:application") as server:
            yield database, server


@pytest.fixture(scope="session")
def page_listing(app_server: tuple[TemporaryDatabase, Daphne]) -> dict[str, Any]:
    """Every page of the served demo with an instance to open (``tests.e2e.page_instances``):
    ``pages`` (URL name → path), ``missing`` and ``data``, listed once per session."""
    database, _ = app_server
    found = subprocess.run(
        [sys.executable, "-m", "tests.e2e.page_instances"],
        cwd=Path(__file__).resolve().parents[2],
        env=database.env(),
        capture_output=True,
        text=True,
        check=True,
    )
    listed: dict[str, Any] = json.loads(found.stdout.strip().splitlines()[-1])
    return listed


@pytest.fixture(scope="session")
def base_url(app_server: tuple[TemporaryDatabase, Daphne]) -> str:
    return app_server[1].url


def log_in(page: Page, base_url: str, username: str, password: str = DEMO_PASSWORD) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}/")


def import_film_transcripts(
    app_server: tuple[TemporaryDatabase, Daphne],
    folder: Path,
    campaign: str,
    prefix: str,
    replies: list[str],
) -> None:
    """Import one transcript per reply (ids ``<prefix>-<n>``) into a new annotation campaign.

    Each test gives replies of its own, so the shared response cache never answers for another.
    """
    database, server = app_server
    rows = [
        {
            "id": f"{prefix}-{n}",
            "system": "warm-recommender",
            "lang": "en",
            "turns": [
                {"role": "user", "text": "A quiet film about space, please."},
                {"role": "system", "text": text},
            ],
        }
        for n, text in enumerate(replies)
    ]
    path = folder / f"{prefix}.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    database.manage("import_transcripts", str(path), "--campaign", campaign, env=server.env)


def fill_scoring_form(page: Page, model: str, concurrency: int) -> None:
    """Choose the fake endpoint on an LLM evaluator's form (the page is open)."""
    page.select_option("#id_credential", FAKE_LLM_CREDENTIAL)
    page.fill("#id_model", model)
    page.fill("#id_concurrency", str(concurrency))


def open_scoring_page(page: Page, base_url: str, campaign: str) -> None:
    """Sign in as the coordinator and open a campaign's LLM evaluator form."""
    log_in(page, base_url, "coordinator")
    page.goto(f"{base_url}/annotation/llm/")
    page.get_by_role("link", name=campaign).click()


@contextmanager
def empty_site(set_up: str) -> Iterator[Daphne]:
    """A new, migrated database served by daphne, with only what ``set_up`` (Python run by
    ``manage.py shell``, in one process) puts in it."""
    with TemporaryDatabase() as database:
        port = free_port()
        env = database.env(EVALSITE_BASE_URL=f"http://127.0.0.1:{port}")
        database.manage("migrate", "--noinput", env=env)
        database.manage("shell", "-c", set_up, env=env)
        with Daphne(env, port=port) as server:
            yield server


def a_coordinator(username: str, password: str) -> str:
    """``set_up`` code that adds one coordinator account."""
    return (
        "from django.contrib.auth.models import Group, User; "
        f"u = User.objects.create_user({username!r}, password={password!r}); "
        "u.groups.add(Group.objects.get(name='coordinators'))"
    )
