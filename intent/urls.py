from __future__ import annotations

from django.urls import path

from intent import views

app_name = "intent"

urlpatterns = [
    path("", views.track_list, name="tracks"),
    path("new/", views.track_new, name="track_new"),
    path("<int:track_id>/", views.track_detail, name="track"),
    path("<int:track_id>/upload/", views.upload_split, name="upload"),
    path("<int:track_id>/teams/", views.add_team, name="add_team"),
    path("<int:track_id>/phase/", views.set_phase, name="phase"),
    path("<int:track_id>/submit/", views.submit, name="submit"),
    path("<int:track_id>/endpoint/", views.endpoint, name="endpoint"),
    path("<int:track_id>/leaderboard/", views.leaderboard, name="leaderboard"),
    path("<int:track_id>/test.json", views.test_inputs, name="test_inputs"),
    path("submissions/<int:submission_id>/", views.submission_detail, name="submission"),
    path(
        "submissions/<int:submission_id>/scores.csv",
        views.submission_export,
        {"fmt": "csv"},
        name="submission_csv",
    ),
    path(
        "submissions/<int:submission_id>/scores.xlsx",
        views.submission_export,
        {"fmt": "xlsx"},
        name="submission_xlsx",
    ),
]
