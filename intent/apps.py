from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class IntentConfig(AppConfig):
    name = "intent"
    verbose_name = _("Intent classification")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the endpoint job kind with the job runner, in every process, and the app's
        # parts of the home page and its demo data.
        from evalsite.demo import register as register_demo
        from intent.demo import seed as seed_demo
        from intent.endpoint import job  # noqa: F401
        from intent.home import register_home_parts

        register_home_parts()
        register_demo(seed_demo)
