"""EvalSite's ASGI application plus two echo consumers, for the live-chat benchmarks.

The bare echo (``/ws/echo/``) stores nothing and calls no system. The storing echo
(``/ws/storing-echo/<session>/``) stores the message and its echo in the session, in
one trip to the database thread, and calls no system: the ceiling that the real chat
consumer in the same daphne process is compared with.
"""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.db import database_sync_to_async  # noqa: E402
from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from evalsite.routing import websocket_urlpatterns  # noqa: E402


class EchoConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.accept()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.send(text_data=f'<div data-role="system">{text_data}</div>')


class StoringEchoConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.session_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        await self.accept()
        await self.send(text_data="<div>history</div>")

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self._store(text_data or "")
        await self.send(text_data=f'<div data-role="system">{text_data}</div>')

    @database_sync_to_async
    def _store(self, text: str) -> None:
        from django.db import transaction
        from django.db.models import Max

        from liveeval.models import Message

        with transaction.atomic():
            last = Message.objects.filter(session_id=self.session_id).aggregate(
                last=Max("position")
            )["last"]
            position = 0 if last is None else last + 1
            Message.objects.bulk_create(
                [
                    Message(session_id=self.session_id, position=position, role="user", text=text),
                    Message(
                        session_id=self.session_id, position=position + 1, role="system", text=text
                    ),
                ]
            )


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AuthMiddlewareStack(
            URLRouter(
                [
                    path("ws/echo/", EchoConsumer.as_asgi()),
                    path("ws/storing-echo/<int:session_id>/", StoringEchoConsumer.as_asgi()),
                    *websocket_urlpatterns,
                ]
            )
        ),
    }
)
