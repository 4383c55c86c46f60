from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class IntentConfig(AppConfig):
    name = "intent"
    verbose_name = _("Intent classification")
    default_auto_field = "django.db.models.BigAutoField"
