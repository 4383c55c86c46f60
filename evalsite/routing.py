from __future__ import annotations

from django.urls import path

from evalsite.consumers import ChangesConsumer, JobProgressConsumer
from liveeval.routing import websocket_urlpatterns as live_patterns

websocket_urlpatterns = [
    path("ws/jobs/<int:job_id>/", JobProgressConsumer.as_asgi()),
    path("ws/changes/<str:topic>/<int:record_id>/", ChangesConsumer.as_asgi()),
    *live_patterns,
]
