"""An upload that finds the disk full: a clear refusal, nothing kept, and the next upload works.

A real daphne process serves EvalSite with its temporary directory (``TMPDIR``: where daphne
keeps request bodies, Django spools uploads and the import page stores files) on a tmpfs of
8 MB, mounted for the test (as root, which the CI container is). A ballast file leaves each
upload less room than it needs at one stage: the body the server receives, Django's copy of
it, the file Django spools, or the copy the import page stores. The test then checks the
answer, in the reader's language, that the room came back (nothing of the upload is left on
the disk), that no campaign or job was made, and that once there is room again the same server
takes and imports a file.
"""

from __future__ import annotations

import http.client
import json
import os
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from testing.llm_run import transcript
from testing.servers import Daphne, TemporaryDatabase

pytestmark = pytest.mark.processes

MB = 1024 * 1024
NO_ROOM = {
    "en": "The server has no room to store this upload right now, and nothing of it was kept.",
    "zh-hans": "服务器现在没有空间存放这个上传，上传的内容一点也没有保留。",
}
SETUP = """
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import Group, User
from django.contrib.sessions.backends.db import SessionStore
cora = User.objects.create_user("cora")
cora.groups.add(Group.objects.get(name="coordinators"))
store = SessionStore()
store[SESSION_KEY] = str(cora.pk)
store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
store[HASH_SESSION_KEY] = cora.get_session_auth_hash()
store.create()
print(settings.SESSION_COOKIE_NAME + "=" + store.session_key)
"""
CSRF = "c" * 32  # a token of the right form: the cookie and the field agree


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "tmp"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def room(disk: Path) -> int:
    stat = os.statvfs(disk)
    return stat.f_bavail * stat.f_frsize


def leave_room(disk: Path, ballast: Path, wanted: int) -> None:
    ballast.unlink(missing_ok=True)
    ballast.write_bytes(b"\0" * (room(disk) - wanted))


def jsonl(size: int) -> bytes:
    """Transcript lines, about ``size`` bytes of them."""
    lines: list[bytes] = []
    total = 0
    while total < size:
        lines.append(json.dumps(transcript(len(lines))).encode() + b"\n")
        total += len(lines[-1])
    return b"".join(lines)


def upload(server: Daphne, cookie: str, campaign: str, data: bytes, lang: str) -> tuple[int, str]:
    """POST ``data`` to the import page as a new campaign's file; the status and the text."""
    boundary = uuid.uuid4().hex
    fields = {"csrfmiddlewaretoken": CSRF, "new_campaign": campaign, "on_annotated": "refuse"}
    body = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    )
    body += (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.jsonl"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    body += data + f"\r\n--{boundary}--\r\n".encode()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.putrequest("POST", "/annotation/import/")
    for header, value in {
        "Content-Type": f"multipart/form-data; boundary={boundary}",
        "Content-Length": str(len(body)),
        "Cookie": f"{cookie}; csrftoken={CSRF}; django_language={lang}",
        "Referer": server.url,
    }.items():
        connection.putheader(header, value)
    connection.endheaders()
    try:
        for start in range(0, len(body), 64 * 1024):
            connection.send(body[start : start + 64 * 1024])
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused before the whole body was read: the answer is already there
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, text


def rows(database: TemporaryDatabase, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(database.url.removeprefix("sqlite:///")) as db:
        return db.execute(sql).fetchall()


def wait_for_room(disk: Path, wanted: int) -> None:
    """The room the upload took comes back (the server frees it as the request ends)."""
    deadline = time.monotonic() + 10
    while room(disk) < wanted and time.monotonic() < deadline:
        time.sleep(0.05)
    assert room(disk) >= wanted, f"{wanted - room(disk)} bytes of the upload stayed on the disk"


def test_an_upload_that_fills_the_disk_is_refused_in_words_and_leaves_nothing(
    small_disk: Path,
) -> None:
    ballast = small_disk / "ballast"
    with TemporaryDatabase(like="") as database:
        env = database.env(TMPDIR=str(small_disk), JOB_RUNNER="thread")
        database.manage("migrate", "--noinput", env=env)
        cookie = database.manage("shell", "-c", SETUP, env=env).strip().splitlines()[-1]
        with Daphne(env) as server:
            # (room left, upload size, the reader's language, the status). A body over 100 kB
            # is kept on disk by the server, and one over 2.5 MB is copied to disk by Django,
            # then its file spooled to disk by the upload handler, then stored by the page.
            # The room runs out in the server's body; in Django's copy of it; in the spooled
            # file; in the stored copy of a file Django held in memory.
            for left, size, lang, status in (
                (int(1.5 * MB), 2 * MB, "en", 507),
                (int(4.5 * MB), 3 * MB, "zh-hans", 507),
                (int(7.5 * MB), 3 * MB, "zh-hans", 400),
                (int(2.2 * MB), int(1.5 * MB), "en", 400),
            ):
                leave_room(small_disk, ballast, left)
                left = room(small_disk)  # to the page
                answer = upload(server, cookie, f"Full {size}", jsonl(size), lang)
                assert answer[0] == status, (answer, server.log()[-2000:])
                assert NO_ROOM[lang] in answer[1]
                wait_for_room(small_disk, left)
                left_behind = {path.name for path in small_disk.rglob("*")}
                assert left_behind <= {"ballast", "evalsite-uploads"}  # not even a folder
            assert rows(database, "SELECT name FROM annotation_campaign") == []
            assert rows(database, "SELECT id FROM evalsite_job") == []

            # Room again: the same server takes the next upload and imports it.
            ballast.unlink()
            status, _ = upload(server, cookie, "After", jsonl(100_000), "en")
            assert status == 302
            deadline = time.monotonic() + 20
            while rows(database, "SELECT status FROM evalsite_job") != [("done",)]:
                assert time.monotonic() < deadline, rows(database, "SELECT * FROM evalsite_job")
                time.sleep(0.1)
        stored = rows(
            database,
            "SELECT COUNT(*) FROM annotation_transcript t JOIN annotation_campaign c"
            " ON t.campaign_id = c.id WHERE c.name = 'After'",
        )
        assert stored == [(len(jsonl(100_000).splitlines()),)]
