from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Annotation")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the import, report, LLM-scoring and intent-labelling job kinds with the job
        # runner, in every process, so that any worker or `manage.py jobs resume` can continue
        # them; and the app's parts of the home page and its demo data.
        from annotation import jobs  # noqa: F401
        from annotation.demo import seed as seed_demo
        from annotation.from_intent import llm_labels  # noqa: F401
        from annotation.home import register_home_parts
        from annotation.live_changes import register_live_changes
        from annotation.llm_evaluator import job as llm_job  # noqa: F401
        from annotation.report import job as report_job  # noqa: F401
        from annotation.teams import register_teams
        from evalsite.demo import register as register_demo

        register_home_parts()
        register_live_changes()
        register_teams()
        register_demo(seed_demo)
