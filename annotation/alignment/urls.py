"""The alignment pages, under ``annotation/alignment/``."""

from __future__ import annotations

from django.urls import path

from annotation.alignment import views

app_name = "annotation_alignment"

urlpatterns = [
    path("<int:campaign_id>/", views.alignment_page, name="page"),
    path("<int:campaign_id>/adjudicators/", views.adjudicators, name="adjudicators"),
    path("<int:campaign_id>/queue/", views.queue, name="queue"),
    path(
        "<int:campaign_id>/items/<int:transcript_id>/<slug:key>/",
        views.adjudicate,
        name="adjudicate",
    ),
    path("<int:campaign_id>/alignment.xlsx", views.workbook, name="workbook"),
    path("<int:campaign_id>/<slug:table>.csv", views.table_csv, name="csv"),
]
