from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Annotation")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the import, report and LLM-scoring job kinds with the job runner, in every
        # process, so that any worker or `manage.py jobs resume` can continue them.
        from annotation import jobs, llm_evaluator  # noqa: F401
        from annotation.report import job  # noqa: F401
