"""The HTTP request daphne serves EvalSite with: bodies bounded before they are read.

Daphne builds its requests on Twisted's, which by default parses every
``multipart/form-data`` POST in memory before the application sees it: a 200 MB body sent
to any address, with no account, took a server process from 190 MB to 2.6 GB, and the
application's own upload limits never ran. `BoundedRequest` turns that parsing off (Django
parses forms itself, streaming files to disk) and refuses, with 413, a body larger than the
largest upload EvalSite takes: at once when its ``Content-Length`` says so, and as soon as a
chunked body passes the limit. Twisted keeps a body above 100 kB in a temporary file, and
`BoundedRequest` hands it to the application in 1 MiB pieces, each a block of its own that
goes back to the system once read, so a large upload leaves nothing behind in the process.

`install()` puts it in place of daphne's own request; `evalsite.asgi` calls it, so both
``daphne evalsite.asgi:application`` and the test servers use it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

# Room for a multipart body's boundaries and form fields around the largest file.
MULTIPART_ALLOWANCE = 1024 * 1024
# Pieces of this size are allocated with mmap, and returned to the system when freed.
BODY_PIECE = 1024 * 1024


def max_body_bytes() -> int:
    """The largest request body the server reads: the import limit, plus multipart's framing."""
    return int(settings.IMPORT_MAX_UPLOAD_BYTES) + MULTIPART_ALLOWANCE


class _Discard:
    """Where the rest of a refused body goes while the connection closes."""

    closed = False

    def write(self, data: bytes) -> None:
        pass

    def seek(self, *args: object) -> int:
        return 0

    def tell(self) -> int:
        return 0

    def read(self, size: int = -1) -> bytes:
        return b""

    def close(self) -> None:
        self.closed = True


class _PacedQueue:
    """The application's input queue, fed one body piece at a time as the application reads.

    Daphne puts a whole body in the queue at once; past the first piece, this sends the rest
    from the request's body file only when the application has taken what was sent, so a
    large body is never held in memory whole.
    """

    def __init__(self, queue: asyncio.Queue[dict[str, Any]], request: Any) -> None:
        self.queue = queue
        self.request = request
        self.feeding = False
        self.feeder: asyncio.Future[None] | None = None

    def put_nowait(self, message: dict[str, Any]) -> None:
        if message["type"] != "http.request":
            self.queue.put_nowait(message)
            return
        if self.feeding:
            return  # daphne's later pieces: the feeder sends them from the file
        self.queue.put_nowait(message)
        if message.get("more_body"):
            self.feeding = True
            self.request.content.seek(0, 2)  # daphne's loop finds nothing more to read
            self.feeder = asyncio.ensure_future(self.feed(len(message["body"])))

    async def feed(self, offset: int) -> None:
        while True:
            while self.queue.qsize() > 1:
                await asyncio.sleep(0.002)
            content = self.request.content
            if content is None or content.closed:
                return
            content.seek(offset)
            piece = content.read(BODY_PIECE)
            offset += len(piece)
            more = len(piece) == BODY_PIECE
            self.queue.put_nowait({"type": "http.request", "body": piece, "more_body": more})
            if not more:
                return


def request_class() -> type[Any]:
    """`BoundedRequest`, built on daphne's request (imported only where daphne serves)."""
    from daphne.http_protocol import WebRequest

    class BoundedRequest(WebRequest):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["parsePOSTFormSubmission"] = False
            self._body_limit = max_body_bytes()
            self._body_received = 0
            self._refused = False
            self._paced: _PacedQueue | None = None
            super().__init__(*args, **kwargs)
            self.server.request_buffer_size = max(self.server.request_buffer_size, BODY_PIECE)

        @property
        def application_queue(self) -> _PacedQueue | None:
            return self._paced

        @application_queue.setter
        def application_queue(self, queue: asyncio.Queue[dict[str, Any]] | None) -> None:
            self._paced = None if queue is None else _PacedQueue(queue, self)

        def gotLength(self, length: int | None) -> None:
            if length is not None and length > self._body_limit:
                self._refuse(length)
                return
            super().gotLength(length)

        def handleContentChunk(self, data: bytes) -> None:
            if self._refused:
                return
            self._body_received += len(data)
            if self._body_received > self._body_limit:
                self._refuse(self._body_received)
                return
            super().handleContentChunk(data)

        def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
            if self._refused:
                return
            super().requestReceived(command, path, version)

        def _refuse(self, size: int) -> None:
            """413 and close, before any more of the body is read."""
            self._refused = True
            content: Any = getattr(self, "content", None)
            if content is not None:
                content.close()
            self.content = _Discard()
            logger.warning(
                "refused a request body of %d bytes or more (the limit is %d)",
                size,
                self._body_limit,
            )
            message = b"The request body is larger than this server accepts.\n"
            self.channel.transport.write(
                b"HTTP/1.1 413 Request Entity Too Large\r\n"
                b"Content-Type: text/plain; charset=utf-8\r\n"
                b"Content-Length: " + str(len(message)).encode() + b"\r\n"
                b"Connection: close\r\n\r\n" + message
            )
            self.channel.loseConnection()

    return BoundedRequest


def install() -> None:
    """Serve every HTTP request of this process as a `BoundedRequest`."""
    try:
        from daphne import http_protocol
    except ImportError:  # pragma: no cover - daphne is a dependency
        return
    if getattr(http_protocol.WebRequest, "_evalsite_bounded", False):
        return
    bounded = request_class()
    bounded._evalsite_bounded = True
    http_protocol.WebRequest = bounded
