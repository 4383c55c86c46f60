"""Named users for every role, shared by the whole suite.

Every role-guarded test uses the same cast: a judge, an annotator, a
coordinator and an outsider who holds no role.
"""

from __future__ import annotations

import importlib
import os
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client, override_settings
from django.utils import translation

from evalsite import roles

PASSWORD = "correct-horse-battery"


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hasher() -> Iterator[None]:
    """Passwords hash with MD5 in the test process: the served PBKDF2 is slow on purpose, and
    every test user would pay for it. What the tests check of passwords holds with any hasher."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session", autouse=True)
def _test_database_first(request: pytest.FixtureRequest) -> None:
    """The test database is made before any test runs.

    Playwright's sync API keeps an event loop running in the test thread, and Django refuses
    synchronous database work while one runs; a worker of pytest-xdist whose first tests are
    browser tests would otherwise make the database inside that loop, and fail.
    """
    request.getfixturevalue("django_db_setup")


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Every test starts, and leaves, in the site's default language.

    A request through the test client activates its reader's language in the test's thread
    and leaves it active, so without this a Chinese page test would turn the next test's
    messages Chinese, and the suite would depend on its order.
    """
    translation.deactivate()
    yield
    translation.deactivate()


# The rows that migrations create, which a transactional test's flush deletes. pytest-django
# runs transactional tests after all others in one process; a worker of pytest-xdist, or a
# random order, runs them in between, so the rows are put back before any later test.
SEEDING_MIGRATIONS = (
    ("evalsite.migrations.0002_roles", "create_roles"),
    ("intent.migrations.0002_participants_group", "create_group"),
    ("liveeval.migrations.0002_builtin_systems", "create_builtin_systems"),
    ("annotation.migrations.0005_adjudication_reasons", "add_reasons"),
)
_flushed = {"since_seeding": False}


def _seed_migration_rows() -> None:
    from django.apps import apps

    for module, function in SEEDING_MIGRATIONS:
        getattr(importlib.import_module(module), function)(apps, None)


def _transactional(request: pytest.FixtureRequest) -> bool:
    marker = request.node.get_closest_marker("django_db")
    if marker is not None and (marker.kwargs.get("transaction") or marker.args[:1] == (True,)):
        return True
    return "transactional_db" in request.fixturenames or "live_server" in request.fixturenames


@pytest.fixture(autouse=True)
def _migration_rows(request: pytest.FixtureRequest) -> Iterator[None]:
    """The migrations' rows are there for every database test, whatever ran before it."""
    uses_db = request.node.get_closest_marker("django_db") is not None or bool(
        {"db", "transactional_db"} & set(request.fixturenames)
    )
    transactional = _transactional(request)
    if uses_db and _flushed["since_seeding"]:
        request.getfixturevalue("transactional_db" if transactional else "db")
        _seed_migration_rows()
        # Rows seeded inside a test's transaction are rolled back with it; only a
        # transactional test's seeding lasts, until its own flush.
        _flushed["since_seeding"] = not transactional
    yield
    if transactional:
        _flushed["since_seeding"] = True


def make_user(username: str, *held: str, staff: bool = False) -> User:
    user = User.objects.create_user(username, f"{username}@example.org", PASSWORD)
    user.is_staff = staff
    user.save(update_fields=["is_staff"])
    for name in held:
        user.groups.add(Group.objects.get_or_create(name=name)[0])
    return user


@pytest.fixture
def user_factory(db: None) -> Callable[..., User]:
    return make_user


@pytest.fixture
def judge(db: None) -> User:
    return make_user("jade", roles.JUDGES)


@pytest.fixture
def other_judge(db: None) -> User:
    return make_user("jules", roles.JUDGES)


@pytest.fixture
def annotator(db: None) -> User:
    return make_user("anna", roles.ANNOTATORS)


@pytest.fixture
def coordinator(db: None) -> User:
    return make_user("cora", roles.COORDINATORS)


@pytest.fixture
def staff(db: None) -> User:
    return make_user("stan", staff=True)


@pytest.fixture
def outsider(db: None) -> User:
    return make_user("otto")


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def judge_client(judge: User) -> Client:
    return logged_in(judge)


@pytest.fixture
def annotator_client(annotator: User) -> Client:
    return logged_in(annotator)


@pytest.fixture
def coordinator_client(coordinator: User) -> Client:
    return logged_in(coordinator)


@pytest.fixture
def outsider_client(outsider: User) -> Client:
    return logged_in(outsider)


def _reachable(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def services() -> dict[str, str]:
    """PostgreSQL and Redis on this machine; outside CI a missing service skips the test."""
    missing = [
        name for name, port in (("PostgreSQL", 5432), ("Redis", 6379)) if not _reachable(port)
    ]
    if missing:
        message = f"{' and '.join(missing)} not reachable on 127.0.0.1"
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(message + " (CI requires them)")
        pytest.skip(message)
    return {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
    }


# The slow tier, by one rule: a test is slow when it drives a browser (e2e), starts other
# processes (processes), needs PostgreSQL and Redis (services) or runs many seeded simulated
# campaigns (monte_carlo). `make check` runs the rest; `make test` runs everything.
SLOW_MARKS = ("e2e", "processes", "services", "monte_carlo")


def is_slow(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(name) is not None for name in SLOW_MARKS)


def pytest_itemcollected(item: pytest.Item) -> None:
    """Marked as it is collected, before ``-m "not slow"`` chooses."""
    if is_slow(item):
        item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _fresh_rate_limits() -> None:
    """Rate limits count in the cache; every test starts with none spent.

    On Redis only this process's keys go: ``cache.clear()`` would empty the whole database,
    under the other pytest-xdist worker's running test too.
    """
    from django.core.cache import cache

    backend = getattr(cache, "_cache", None)
    if backend is None or not hasattr(backend, "get_client"):
        cache.clear()
        return
    redis = backend.get_client(write=True)
    keys = list(redis.scan_iter(match=cache.make_key("*")))
    if keys:
        redis.delete(*keys)


def pytest_configure(config: pytest.Config) -> None:
    """Each pytest-xdist worker names its Redis keys and channels under a prefix of its own.

    The workers share one Redis server: without this, one worker's sign-in attempts would
    count against the other's rate limits, and its groups would hear the other's messages.
    Processes that a test starts inherit the prefix through the environment.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    from django.conf import settings

    if not worker or not getattr(settings, "REDIS_URL", None):
        return
    prefix = f"{settings.INSTANCE_PREFIX}.{worker}"
    os.environ["EVALSITE_INSTANCE_PREFIX"] = prefix
    settings.INSTANCE_PREFIX = prefix
    layers: dict[str, dict[str, Any]] = settings.CHANNEL_LAYERS
    for layer in layers.values():
        layer.get("CONFIG", {})["prefix"] = prefix
    for cache in settings.CACHES.values():
        if "KEY_PREFIX" in cache:
            cache["KEY_PREFIX"] = prefix
