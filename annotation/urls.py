"""Every page of the annotation app, under ``annotation/``: one namespace per part.

``annotation:`` names the campaigns, imports and annotators' pages; the CONCEPT scorecard's
pages keep their own namespace, ``concept:``, the LLM evaluator's, ``annotation_llm:``, and
judge alignment's, ``annotation_alignment:``.
"""

from __future__ import annotations

from django.urls import include, path

from annotation import catalog_views, settings_views, views

campaign_patterns = [
    path("campaigns/", views.campaigns, name="campaigns"),
    path("import/", views.import_transcripts, name="import_transcripts"),
    path("import/llm-scores/", views.import_scores, name="import_scores"),
    path("new/", settings_views.campaign_new, name="campaign_new"),
    path("catalogs/", catalog_views.catalogs, name="catalogs"),
    path("<int:campaign_id>/", views.dashboard, name="dashboard"),
    path("<int:campaign_id>/settings/", settings_views.campaign_settings, name="settings"),
    path("<int:campaign_id>/gold/", settings_views.gold_items, name="gold_items"),
    path("<int:campaign_id>/gold/<int:transcript_id>/", settings_views.gold_item, name="gold_item"),
    path("<int:campaign_id>/clone/", settings_views.campaign_clone, name="clone"),
    path(
        "<int:campaign_id>/archive/",
        settings_views.campaign_archive,
        {"archived": True},
        name="archive",
    ),
    path(
        "<int:campaign_id>/restore/",
        settings_views.campaign_archive,
        {"archived": False},
        name="restore",
    ),
    path("<int:campaign_id>/roster/", views.roster, name="roster"),
    path(
        "<int:campaign_id>/transcripts/<int:transcript_id>/",
        views.transcript_scores,
        name="transcript_scores",
    ),
    path("<int:campaign_id>/work/", views.work, name="work"),
    path("<int:campaign_id>/mine/", views.mine, name="mine"),
    path("<int:campaign_id>/items/<int:transcript_id>/", views.item, name="item"),
    path("<int:campaign_id>/items/<int:transcript_id>/skip/", views.skip, name="skip"),
    path("<int:campaign_id>/items/<int:transcript_id>/take-up/", views.take_up, name="take_up"),
]

# Each part keeps its own namespace beside "annotation" (the campaigns): "concept",
# "annotation_llm" and "annotation_report".
urlpatterns = [
    path("concept/", include("annotation.concept.urls")),
    path("llm/", include("annotation.llm_evaluator.urls")),
    path("alignment/", include("annotation.alignment.urls")),
    path("report/", include("annotation.report.urls")),
    path("", include((campaign_patterns, "annotation"))),
]
