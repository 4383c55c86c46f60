"""The server bounds request bodies before the application sees them, and reads them lazily.

A real daphne process serves EvalSite; bodies go to it over a socket with no account. The
memory figures are the process's resident set (``/proc/PID/status``), read before and after.
"""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from testing.servers import Daphne, served_database

pytestmark = pytest.mark.processes

MB = 1024 * 1024
LIMIT_MB = 64


@pytest.fixture(scope="module")
def server() -> Iterator[Daphne]:
    with served_database(extra_env={"EVALSITE_IMPORT_MAX_UPLOAD_MB": str(LIMIT_MB)}) as (_, daphne):
        yield daphne


def rss_mb(daphne: Daphne) -> float:
    assert daphne.process is not None
    for line in Path(f"/proc/{daphne.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def multipart_post(daphne: Daphne, size: int, path: str = "/accounts/login/") -> int:
    """POST a multipart body of about ``size`` bytes, streamed, and return the status."""
    boundary = "----evalsite-test"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    connection = http.client.HTTPConnection("127.0.0.1", daphne.port, timeout=60)
    connection.putrequest("POST", path)
    connection.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
    connection.putheader("Content-Length", str(len(head) + size + len(tail)))
    connection.endheaders()
    try:
        connection.send(head)
        piece = b"x" * MB
        for _ in range(size // MB):
            connection.send(piece)
        connection.send(tail)
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused before the body was read: the answer is already there
    status = connection.getresponse().status
    connection.close()
    return status


def test_a_body_over_the_limit_is_refused_before_it_is_read(server: Daphne) -> None:
    before = rss_mb(server)
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(
            b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\n"
            + f"Content-Length: {200 * MB}\r\n\r\n".encode()
        )
        answer = raw.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert b"larger than this server accepts" in answer
    # Answered at the headers, without waiting for 200 MB that never come.
    assert time.monotonic() - started < 5
    assert rss_mb(server) - before < 10


def test_a_chunked_body_is_cut_off_once_it_passes_the_limit(server: Daphne) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw:
        raw.sendall(
            b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        piece = b"%x\r\n" % MB + b"y" * MB + b"\r\n"
        try:
            for _ in range(LIMIT_MB + 8):
                raw.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = raw.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413 ")


def test_a_large_multipart_body_within_the_limit_leaves_the_memory_flat(server: Daphne) -> None:
    assert multipart_post(server, 4 * MB) == 403  # warm up: the login page refuses no CSRF
    before = rss_mb(server)
    for _ in range(3):
        assert multipart_post(server, (LIMIT_MB - 4) * MB) == 403
    grown = rss_mb(server) - before
    # Twisted's own parsing held each body several times over (a 200 MB body took 2.4 GB);
    # read piece by piece, three 60 MB bodies leave the process within a few MB of where it was.
    assert grown < 25, f"the server grew by {grown:.0f} MB"


def test_an_ordinary_form_post_still_reaches_the_application(server: Daphne) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request(
        "POST",
        "/accounts/login/",
        body="username=a&password=b",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    response = connection.getresponse()
    # Django's CSRF check answered, so the body reached Django.
    assert response.status == 403
    assert b"CSRF" in response.read()
