from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FidelityConfig(AppConfig):
    name = "fidelity"
    verbose_name = _("Simulator fidelity")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the simulator, embedding, aspect-labelling and file-import job kinds in every
        # process, so that any worker can run and resume them; and the app's home-page part and
        # demo study.
        from evalsite.demo import register as register_demo
        from fidelity import aspect_labels, embedding, simulation, upload_job  # noqa: F401
        from fidelity.demo import seed as seed_demo
        from fidelity.home import register_home_parts

        register_home_parts()
        register_demo(seed_demo)
