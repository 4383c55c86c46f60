from __future__ import annotations

from django.urls import path

from evalsite.consumers import JobProgressConsumer

websocket_urlpatterns = [
    path("ws/jobs/<int:job_id>/", JobProgressConsumer.as_asgi()),
]
