from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvalSiteConfig(AppConfig):
    name = "evalsite"
    verbose_name = _("EvalSite")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # bulk_people registers the job kind mailing new people their links.
        # The coordinator section opens with its heading; the apps installed after this one
        # add their parts to it, and their own sections, from their ready().
        from django.conf import settings

        from evalsite import bulk_people, home, roles, socket_revocation  # noqa: F401
        from evalsite.llm.credentials import parse_credentials

        parse_credentials(settings.LLM_KEYS)
        socket_revocation.connect_signals()

        home.register(roles.COORDINATORS, home.coordinator_part)
