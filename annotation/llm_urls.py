from __future__ import annotations

from django.urls import path

from annotation import llm_views

app_name = "annotation_llm"

urlpatterns = [
    path("", llm_views.llm_index, name="index"),
    path("<int:campaign_id>/", llm_views.llm_campaign, name="campaign"),
]
