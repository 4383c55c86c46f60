"""The page that sends a live campaign's dialogues to annotation, under ``live/simulate/``."""

from __future__ import annotations

from django.urls import path

from annotation.from_live import views

app_name = "from_live"

urlpatterns = [
    path("<int:campaign_id>/send/", views.send_to_annotation_page, name="send"),
]
