from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LiveEvalConfig(AppConfig):
    name = "liveeval"
    verbose_name = _("Live evaluation")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the simulation job kind with the job runner, in every process, and the
        # app's parts of the home page and its demo data.
        from evalsite.demo import register as register_demo
        from liveeval.demo import seed as seed_demo
        from liveeval.home import register_home_parts
        from liveeval.live_changes import register_live_changes
        from liveeval.simulation import job  # noqa: F401
        from liveeval.teams import register_teams

        register_home_parts()
        register_live_changes()
        register_teams()
        register_demo(seed_demo)
