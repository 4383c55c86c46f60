from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvalSiteConfig(AppConfig):
    name = "evalsite"
    verbose_name = _("EvalSite")
    default_auto_field = "django.db.models.BigAutoField"
