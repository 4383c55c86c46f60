"""The LLM evaluator's pages, under ``annotation/llm/``."""

from __future__ import annotations

from django.urls import path

from annotation.llm_evaluator import views

app_name = "annotation_llm"

urlpatterns = [
    path("", views.llm_index, name="index"),
    path("<int:campaign_id>/", views.llm_campaign, name="campaign"),
]
