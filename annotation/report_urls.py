from __future__ import annotations

from django.urls import path

from annotation import report_views

app_name = "annotation_report"

urlpatterns = [
    path("<int:campaign_id>/", report_views.report_page, name="page"),
    path("<int:campaign_id>/compute/", report_views.compute, name="compute"),
    path("<int:campaign_id>/jobs/<int:job_id>/", report_views.progress, name="progress"),
    path("<int:campaign_id>/report.xlsx", report_views.workbook, name="workbook"),
    path("<int:campaign_id>/<slug:table>.csv", report_views.table_csv, name="csv"),
]
