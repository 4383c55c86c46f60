"""The agreement report's pages and downloads, under ``annotation/report/``."""

from __future__ import annotations

from django.urls import path

from annotation.report import views

app_name = "annotation_report"

urlpatterns = [
    path("<int:campaign_id>/", views.report_page, name="page"),
    path("<int:campaign_id>/compute/", views.compute, name="compute"),
    path("<int:campaign_id>/jobs/<int:job_id>/", views.progress, name="progress"),
    path("<int:campaign_id>/report.xlsx", views.workbook, name="workbook"),
    path("<int:campaign_id>/<slug:table>.csv", views.table_csv, name="csv"),
]
