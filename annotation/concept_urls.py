from __future__ import annotations

from django.urls import path

from annotation import concept_views

app_name = "concept"

urlpatterns = [
    path("<int:campaign_id>/", concept_views.scorecard, name="scorecard"),
    path("<int:campaign_id>/transcripts/", concept_views.transcripts, name="transcripts"),
]
