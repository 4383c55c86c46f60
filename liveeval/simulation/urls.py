"""The simulated judges' pages, under ``live/simulate/``."""

from __future__ import annotations

from django.urls import path

from liveeval.simulation import views

app_name = "simulation"

urlpatterns = [
    path("", views.simulation_index, name="index"),
    path("<int:campaign_id>/", views.simulation_campaign, name="campaign"),
]
