"""What a team's endpoint may send back: bounded in bytes, in time and in nesting, and what the
team is told of a failure never maps the server's network."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from intent.endpoint.protocol import MAX_ANSWER_BYTES, Cause, Failure, Item, send

BATCH = [Item("1", "你好", None), Item("2", "明天天气", None)]
LABELS = ("chat", "weather")


class Drip(httpx.SyncByteStream):
    """An answer sent a few bytes at a time, each piece well within a per-read timeout."""

    def __iter__(self) -> Iterator[bytes]:
        for _ in range(40):
            time.sleep(0.05)
            yield b" "
        yield b'{"resultsList": []}'


def client_answering(handler: object) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler))  # type: ignore[arg-type]


def test_a_good_answer_is_read() -> None:
    answer = {"resultsList": [{"id": "1", "result": "chat"}, {"id": "2", "result": "weather"}]}
    client = client_answering(lambda request: httpx.Response(200, json=answer))
    result = send(client, "http://team/", BATCH, LABELS, timeout=2)
    assert result.failure is None
    assert result.answers == {"1": "chat", "2": "weather"}


def test_an_answer_longer_than_the_cap_fails_the_batch() -> None:
    body = b'{"resultsList": [' + b" " * (MAX_ANSWER_BYTES + 10) + b"]}"
    client = client_answering(lambda request: httpx.Response(200, content=body))
    result = send(client, "http://team/", BATCH, LABELS, timeout=2)
    assert result.failure == Failure(Cause.TOO_LONG, str(MAX_ANSWER_BYTES))


def test_a_drip_fed_answer_is_cut_at_the_deadline() -> None:
    client = client_answering(lambda request: httpx.Response(200, stream=Drip()))
    started = time.monotonic()
    result = send(client, "http://team/", BATCH, LABELS, timeout=0.5)
    # 40 pieces of 50 ms each would take 2 s; the deadline stops it after about 0.5 s.
    assert time.monotonic() - started < 1.5
    assert result.failure == Failure(Cause.LATE, "0.5")


def test_a_deeply_nested_answer_fails_the_batch_and_not_the_job() -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    client = client_answering(lambda request: httpx.Response(200, content=body))
    result = send(client, "http://team/", BATCH, LABELS, timeout=2)
    assert result.failure == Failure(Cause.NESTED)


@pytest.mark.parametrize("status", [403, 404, 500, 502])
def test_an_http_error_and_an_unreachable_endpoint_keep_their_cause(status: int) -> None:
    refused = client_answering(lambda request: httpx.Response(status, text="forbidden"))
    unreachable = client_answering(lambda request: (_ for _ in ()).throw(httpx.ConnectError("x")))
    one = send(refused, "http://team/", BATCH, LABELS, timeout=2)
    other = send(unreachable, "http://team/", BATCH, LABELS, timeout=2)
    assert one.failure == Failure(Cause.HTTP_STATUS, str(status))
    assert other.failure == Failure(Cause.UNREACHABLE, "ConnectError: x")
