"""The intent annotation pages, under ``annotation/intent/``."""

from __future__ import annotations

from django.urls import path

from annotation.from_intent import views

app_name = "from_intent"

urlpatterns = [
    path("tracks/<int:track_id>/send/", views.send_page, name="send"),
    path("<int:campaign_id>/", views.agreement_page, name="agreement"),
]
