"""The CONCEPT pages, under the ``concept`` namespace (included by ``annotation.urls``)."""

from __future__ import annotations

from django.urls import path

from annotation.concept import views

app_name = "concept"

urlpatterns = [
    path("<int:campaign_id>/", views.scorecard, name="scorecard"),
    path("<int:campaign_id>/transcripts/", views.transcripts, name="transcripts"),
]
