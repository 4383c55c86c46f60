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
When the disk that holds that file (the temporary directory) is full, it answers 507 with a
sentence in the reader's language, and frees what it kept; so does `BodyRoomHandler` when
Django's own copy of the body finds the disk full.

`install()` puts it in place of daphne's own request; `evalsite.asgi` calls it, so both
``daphne evalsite.asgi:application`` and the test servers use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from types import SimpleNamespace
from typing import Any

import django
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.http.cookie import parse_cookie
from django.utils import translation

from evalsite.upload_limit import NO_ROOM, is_disk_full

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

    def flush(self) -> None:
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


def no_room_message(cookie: str, accept_language: str) -> str:
    """The full disk's sentence in the reader's language: their language cookie, or their
    browser's languages, as Django's LocaleMiddleware would choose."""
    reader = SimpleNamespace(
        COOKIES=parse_cookie(cookie), META={"HTTP_ACCEPT_LANGUAGE": accept_language}
    )
    with translation.override(translation.get_language_from_request(reader)):  # type: ignore[arg-type]
        return str(NO_ROOM)


class _NoRoomForBody(Exception):
    pass


class BodyRoomHandler(ASGIHandler):
    """Django's ASGI handler, answering 507 when the disk has no room for a request body.

    Django copies a body larger than ``FILE_UPLOAD_MAX_MEMORY_SIZE`` to a temporary file before
    the view runs; on a full disk that copy failed with a bare 500. The part it wrote goes with
    the failed copy.
    """

    async def read_body(self, receive: Any) -> Any:
        try:
            return await super().read_body(receive)
        except OSError as error:
            if not is_disk_full(error):
                raise
            logger.error("no room on disk for a request body: %s", error)
        raise _NoRoomForBody

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().handle(scope, receive, send)
        except _NoRoomForBody:
            headers = {name.lower(): value.decode("latin-1") for name, value in scope["headers"]}
            body = no_room_message(headers.get(b"cookie", ""), headers.get(b"accept-language", ""))
            await send(
                {
                    "type": "http.response.start",
                    "status": 507,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8")],
                }
            )
            await send({"type": "http.response.body", "body": (body + "\n").encode()})


def django_application() -> ASGIHandler:
    """Django's ASGI application (as ``get_asgi_application``), with `BodyRoomHandler`."""
    django.setup(set_prefix=False)
    return BodyRoomHandler()


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
            try:
                super().gotLength(length)
            except OSError as error:
                self._no_room(error)

        def handleContentChunk(self, data: bytes) -> None:
            if self._refused:
                return
            self._body_received += len(data)
            if self._body_received > self._body_limit:
                self._refuse(self._body_received)
                return
            try:
                super().handleContentChunk(data)
            except OSError as error:
                self._no_room(error)

        def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
            if self._refused:
                return
            try:
                self.content.flush()  # what is still buffered may find the disk full
            except OSError as error:
                self._no_room(error)
                return
            super().requestReceived(command, path, version)

        def _refuse(self, size: int) -> None:
            """413 and close, before any more of the body is read."""
            logger.warning(
                "refused a request body of %d bytes or more (the limit is %d)",
                size,
                self._body_limit,
            )
            self._answer_and_close(
                b"413 Request Entity Too Large",
                "The request body is larger than this server accepts.",
            )

        def _no_room(self, error: OSError) -> None:
            """507 and close when the disk has no room for the body; the part kept is freed."""
            if not is_disk_full(error):
                raise error
            logger.error("no room on disk for a request body: %s", error)
            message = no_room_message(self._header(b"cookie"), self._header(b"accept-language"))
            self._answer_and_close(b"507 Insufficient Storage", message)

        def _header(self, name: bytes) -> str:
            values = self.requestHeaders.getRawHeaders(name) or []
            return b", ".join(values).decode("latin-1")

        def _answer_and_close(self, status: bytes, message: str) -> None:
            """Answer ``status`` with ``message`` as text, read no more of the body, close."""
            self._refused = True
            content: Any = getattr(self, "content", None)
            if content is not None:
                with contextlib.suppress(OSError):
                    content.close()
            self.content = _Discard()
            body = (message + "\n").encode()
            self.channel.transport.write(
                b"HTTP/1.1 " + status + b"\r\n"
                b"Content-Type: text/plain; charset=utf-8\r\n"
                b"Content-Length: " + str(len(body)).encode() + b"\r\n"
                b"Connection: close\r\n\r\n" + body
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
