"""The fidelity pages, under `fidelity/`."""

from __future__ import annotations

from django.urls import URLPattern

app_name = "fidelity"

urlpatterns: list[URLPattern] = []
