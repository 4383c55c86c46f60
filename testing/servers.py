"""Throw-away databases and daphne processes, for browser tests and benchmarks.

Browser tests and benchmarks need a real ASGI server with WebSockets, which
pytest-django's WSGI ``live_server`` is not, serving a database that outlives
one connection, which in-memory SQLite is not. These helpers make a fresh
database (a SQLite file, or a new PostgreSQL database when ``DATABASE_URL``
points at PostgreSQL), migrate it, and run ``daphne`` against it.

Migrating takes seconds of CPU, and a test run makes several such databases: the first
``migrate`` of a run, for each kind of database, builds a migrated template
(``MigratedTemplate``), and every fresh database is then migrated by copying it (SQLite's
backup API, PostgreSQL's ``CREATE DATABASE ... TEMPLATE``). The result is the same
database; the migrations themselves still run, once per run here and once in the test
database of pytest-django.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BASE_DIR = Path(__file__).resolve().parent.parent
SQLITE_FILE = "evalsite.sqlite3"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TemporaryDatabase:
    """A database of its own, created on enter and removed on exit."""

    def __init__(self, like: str | None = None) -> None:
        self.like = like if like is not None else os.environ.get("DATABASE_URL", "")
        self.url = ""
        self._tmpdir: str | None = None
        self._pg_name: str | None = None
        # True from creation until the first manage.py command: a migrate then may copy.
        self._untouched = False

    def __enter__(self) -> TemporaryDatabase:
        if urlsplit(self.like).scheme.startswith("postgres"):
            import psycopg

            self._pg_name = f"evalsite_tmp_{uuid.uuid4().hex[:12]}"
            parts = urlsplit(self.like)
            admin = urlunsplit(parts._replace(path="/postgres"))
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{self._pg_name}"')
            self.url = urlunsplit(parts._replace(path=f"/{self._pg_name}"))
        else:
            self._tmpdir = tempfile.mkdtemp(prefix="evalsite-db-")
            self.url = f"sqlite:///{self._tmpdir}/{SQLITE_FILE}"
        self._untouched = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pg_name is not None:
            import psycopg

            parts = urlsplit(self.like)
            admin = urlunsplit(parts._replace(path="/postgres"))
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self._pg_name}" WITH (FORCE)')
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

    def server_key(self) -> str:
        """The database server this database lives on: "sqlite", or PostgreSQL's address."""
        if self._pg_name is None:
            return "sqlite"
        return urlunsplit(urlsplit(self.like)._replace(path=""))

    def copy_from(self, template: TemporaryDatabase) -> None:
        """Replace this (empty) database by a copy of ``template``, on the same server."""
        if self._pg_name is not None:
            import psycopg

            admin = urlunsplit(urlsplit(self.like)._replace(path="/postgres"))
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE "{self._pg_name}"')
                conn.execute(f'CREATE DATABASE "{self._pg_name}" TEMPLATE "{template._pg_name}"')
            return
        assert template._tmpdir is not None and self._tmpdir is not None
        with (
            contextlib.closing(sqlite3.connect(Path(template._tmpdir) / SQLITE_FILE)) as source,
            contextlib.closing(sqlite3.connect(Path(self._tmpdir) / SQLITE_FILE)) as target,
        ):
            source.backup(target)

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update({"DATABASE_URL": self.url, "DEBUG": "1", "PYTHONUNBUFFERED": "1"})
        env.update(extra)
        return env

    def manage(self, *args: str, env: dict[str, str] | None = None, timeout: float = 300) -> str:
        """Run ``manage.py`` against this database and return its output.

        ``migrate`` (all apps, no other options but ``--noinput``) as the first command on a
        new database copies the run's migrated template instead (see ``MigratedTemplate``).
        """
        untouched, self._untouched = self._untouched, False
        if untouched and args in (("migrate",), ("migrate", "--noinput")):
            return MigratedTemplate.copy_into(self, env or self.env(), timeout)
        return self._run(args, env, timeout)

    def _run(self, args: tuple[str, ...], env: dict[str, str] | None, timeout: float) -> str:
        result = subprocess.run(
            [sys.executable, str(BASE_DIR / "manage.py"), *args],
            cwd=BASE_DIR,
            env=env or self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"manage.py {' '.join(args)} failed ({result.returncode}):\n"
                f"{result.stdout}\n{result.stderr}"
            )
        return result.stdout


class MigratedTemplate:
    """A database migrated once per test run, for each database server, copied into new ones.

    The first ``migrate`` on a new SQLite (or PostgreSQL) database of this process runs the
    migrations on a template database of the same kind; it and every later one then get a
    copy of it. The templates are removed when the process exits.
    """

    _lock = threading.Lock()
    _built: dict[str, tuple[TemporaryDatabase, str]] = {}

    @classmethod
    def copy_into(cls, target: TemporaryDatabase, env: dict[str, str], timeout: float) -> str:
        """Migrate ``target`` (new and empty) by copying the template; the migrate output."""
        key = target.server_key()
        with cls._lock:
            if key not in cls._built:
                template = TemporaryDatabase(like=target.like).__enter__()
                atexit.register(template.__exit__, None, None, None)
                template._untouched = False
                output = template._run(
                    ("migrate", "--noinput"), {**env, "DATABASE_URL": template.url}, timeout
                )
                cls._built[key] = (template, output)
            template, output = cls._built[key]
            target.copy_from(template)
        return output


class Daphne:
    """A daphne process serving EvalSite on a free local port."""

    def __init__(
        self,
        env: dict[str, str],
        port: int | None = None,
        application: str = "evalsite.asgi:application",
        options: tuple[str, ...] = (),
    ) -> None:
        self.env = env
        self.application = application
        self.options = options
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[str] | None = None
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - kept open for the process
            "w+", prefix="daphne-", suffix=".log", delete=False
        )

    def __enter__(self) -> Daphne:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                *self.options,
                self.application,
            ],
            cwd=BASE_DIR,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"daphne exited early:\n{self.log()}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as response,
            ):
                if response.status == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"daphne did not become ready on {self.url}:\n{self.log()}")

    def log(self) -> str:
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self._log.close()
        with contextlib.suppress(OSError):
            os.unlink(self._log.name)


@contextlib.contextmanager
def served_database(
    *setup_commands: tuple[str, ...],
    extra_env: dict[str, str] | None = None,
    options: tuple[str, ...] = (),
) -> Iterator[tuple[TemporaryDatabase, Daphne]]:
    """A migrated temporary database, set up by ``setup_commands``, served by daphne (started
    with ``options``)."""
    with TemporaryDatabase() as database:
        env = database.env(**(extra_env or {}))
        database.manage("migrate", "--noinput", env=env)
        for command in setup_commands:
            database.manage(*command, env=env)
        with Daphne(env, options=options) as server:
            yield database, server
