from __future__ import annotations

from django.urls import path

from evalsite.consumers import JobProgressConsumer
from liveeval.routing import websocket_urlpatterns as live_patterns

websocket_urlpatterns = [
    path("ws/jobs/<int:job_id>/", JobProgressConsumer.as_asgi()),
    *live_patterns,
]
