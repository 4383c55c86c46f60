"""The fidelity pages, under `fidelity/`."""

from __future__ import annotations

from django.urls import path

from fidelity import people_views, views

app_name = "fidelity"

urlpatterns = [
    path("", views.study_list, name="studies"),
    path("<int:study_id>/", views.study_page, name="study"),
    path("<int:study_id>/items/", views.upload, {"kind": "items"}, name="upload_items"),
    path("<int:study_id>/requests/", views.upload, {"kind": "requests"}, name="upload_requests"),
    path("<int:study_id>/catalog/", views.set_catalog, name="catalog"),
    path("<int:study_id>/prompts/", views.draw_prompts, name="prompts"),
    path("<int:study_id>/simulators/", views.add_simulator, name="add_simulator"),
    path(
        "<int:study_id>/simulators/<int:simulator_id>/run/",
        views.run_simulator,
        name="run_simulator",
    ),
    path(
        "<int:study_id>/simulators/<int:simulator_id>/",
        views.edit_simulator,
        name="edit_simulator",
    ),
    path(
        "<int:study_id>/simulators/<int:simulator_id>/delete/",
        views.delete_simulator,
        name="delete_simulator",
    ),
    path("<int:study_id>/people/send/", people_views.send, name="send_to_people"),
    path("<int:study_id>/people/collect/", people_views.collect, name="collect_people"),
    path("<int:study_id>/embed/", views.embed_requests, name="embed_requests"),
    path("<int:study_id>/aspects/", views.label_aspects, name="label_aspects"),
    path("<int:study_id>/report/", views.report_page, name="report"),
    path("<int:study_id>/report.csv", views.report_csv, name="report_csv"),
    path("<int:study_id>/report.xlsx", views.report_workbook, name="report_xlsx"),
]
