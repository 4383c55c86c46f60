"""Throw-away databases and daphne processes, for browser tests and benchmarks.

Browser tests and benchmarks need a real ASGI server with WebSockets, which
pytest-django's WSGI ``live_server`` is not, serving a database that outlives
one connection, which in-memory SQLite is not. These helpers make a fresh
database (a SQLite file, or a new PostgreSQL database when ``DATABASE_URL``
points at PostgreSQL), migrate it, and run ``daphne`` against it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BASE_DIR = Path(__file__).resolve().parent.parent


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
            self.url = f"sqlite:///{self._tmpdir}/evalsite.sqlite3"
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

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update({"DATABASE_URL": self.url, "DEBUG": "1", "PYTHONUNBUFFERED": "1"})
        env.update(extra)
        return env

    def manage(self, *args: str, env: dict[str, str] | None = None, timeout: float = 300) -> str:
        """Run ``manage.py`` against this database and return its output."""
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


class Daphne:
    """A daphne process serving EvalSite on a free local port."""

    def __init__(
        self,
        env: dict[str, str],
        port: int | None = None,
        application: str = "evalsite.asgi:application",
    ) -> None:
        self.env = env
        self.application = application
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
    *setup_commands: tuple[str, ...], extra_env: dict[str, str] | None = None
) -> Iterator[tuple[TemporaryDatabase, Daphne]]:
    """A migrated temporary database, set up by ``setup_commands``, served by daphne."""
    with TemporaryDatabase() as database:
        env = database.env(**(extra_env or {}))
        database.manage("migrate", "--noinput", env=env)
        for command in setup_commands:
            database.manage(*command, env=env)
        with Daphne(env) as server:
            yield database, server
