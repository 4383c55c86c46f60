from __future__ import annotations

from django.urls import path

from liveeval import simulation_views

app_name = "simulation"

urlpatterns = [
    path("", simulation_views.simulation_index, name="index"),
    path("<int:campaign_id>/", simulation_views.simulation_campaign, name="campaign"),
    path("<int:campaign_id>/send/", simulation_views.simulation_send, name="send"),
]
