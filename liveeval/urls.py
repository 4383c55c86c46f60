from __future__ import annotations

from django.urls import path

from liveeval import lifecycle_views, system_views, views

app_name = "liveeval"

urlpatterns = [
    path("next/", views.next_session, name="next_session"),
    path("session/<int:session_id>/", views.chat_page, name="chat"),
    path("session/<int:session_id>/end/", views.end_session, name="end_session"),
    path("session/<int:session_id>/rate/", views.rate_session, name="rate_session"),
    path("sandbox/", views.sandbox, name="sandbox"),
    path("campaigns/", views.campaign_list, name="campaign_list"),
    path("campaigns/new/", views.campaign_edit, name="campaign_new"),
    path("campaigns/<int:campaign_id>/", views.campaign_detail, name="campaign_detail"),
    path("campaigns/<int:campaign_id>/edit/", views.campaign_edit, name="campaign_edit"),
    path(
        "campaigns/<int:campaign_id>/progress/",
        views.campaign_progress,
        name="campaign_progress",
    ),
    path(
        "campaigns/<int:campaign_id>/roster/",
        views.campaign_roster,
        name="campaign_roster",
    ),
    path(
        "campaigns/<int:campaign_id>/open/",
        views.campaign_action,
        {"action": "open"},
        name="campaign_open",
    ),
    path(
        "campaigns/<int:campaign_id>/close/",
        views.campaign_action,
        {"action": "close"},
        name="campaign_close",
    ),
    path(
        "campaigns/<int:campaign_id>/clone/", lifecycle_views.campaign_clone, name="campaign_clone"
    ),
    path(
        "campaigns/<int:campaign_id>/archive/",
        lifecycle_views.campaign_archive,
        {"archived": True},
        name="campaign_archive",
    ),
    path(
        "campaigns/<int:campaign_id>/restore/",
        lifecycle_views.campaign_archive,
        {"archived": False},
        name="campaign_restore",
    ),
    path(
        "campaigns/<int:campaign_id>/task-languages/",
        lifecycle_views.task_languages,
        name="campaign_task_languages",
    ),
    path(
        "campaigns/<int:campaign_id>/leaderboard/",
        views.leaderboard_page,
        name="leaderboard",
    ),
    path(
        "campaigns/<int:campaign_id>/export/<str:table>.<str:fmt>",
        views.campaign_export,
        name="campaign_export",
    ),
    path("review/<int:session_id>/", views.session_review, name="session_review"),
    path("systems/", system_views.system_list, name="system_list"),
    path("systems/new/", system_views.system_edit, name="system_new"),
    path("systems/<int:system_id>/", system_views.system_edit, name="system_edit"),
    path("systems/<int:system_id>/test/", system_views.system_test, name="system_test"),
    path("systems/<int:system_id>/toggle/", system_views.system_toggle, name="system_toggle"),
    path("systems/<int:system_id>/delete/", system_views.system_delete, name="system_delete"),
]
