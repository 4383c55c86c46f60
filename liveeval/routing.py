from __future__ import annotations

from django.urls import path

from liveeval.consumers import ChatConsumer

websocket_urlpatterns = [
    path("ws/live/<int:session_id>/", ChatConsumer.as_asgi()),
]
