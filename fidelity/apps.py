from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FidelityConfig(AppConfig):
    name = "fidelity"
    verbose_name = _("Simulator fidelity")
    default_auto_field = "django.db.models.BigAutoField"
