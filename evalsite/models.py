from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Job(models.Model):
    """A long-running piece of work (an import, a report, an LLM run) with its progress."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")
        INTERRUPTED = "interrupted", _("Interrupted")

    kind = models.CharField(_("kind"), max_length=64)
    params = models.JSONField(_("parameters"), default=dict, blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    done = models.PositiveIntegerField(_("done"), default=0)
    total = models.PositiveIntegerField(_("total"), null=True, blank=True)
    message = models.CharField(_("message"), max_length=500, blank=True)
    errors = models.JSONField(_("errors"), default=list, blank=True)
    result = models.JSONField(_("result"), default=dict, blank=True)
    checkpoint = models.JSONField(
        _("checkpoint"),
        default=dict,
        blank=True,
        help_text=_("What the job needs to continue where it stopped."),
    )
    worker = models.CharField(_("worker"), max_length=100, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    heartbeat_at = models.DateTimeField(_("heartbeat"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"

    @property
    def percent(self) -> int:
        if self.status == self.Status.DONE:
            return 100
        if not self.total:
            return 0
        return min(100, int(100 * self.done / self.total))

    @property
    def is_finished(self) -> bool:
        return self.status in {self.Status.DONE, self.Status.FAILED, self.Status.INTERRUPTED}

    @property
    def can_resume(self) -> bool:
        return self.status in {self.Status.INTERRUPTED, self.Status.FAILED}

    def as_event(self) -> dict[str, Any]:
        return {
            "id": self.pk,
            "kind": self.kind,
            "status": self.status,
            "status_label": str(self.get_status_display()),
            "done": self.done,
            "total": self.total,
            "percent": self.percent,
            "message": self.message,
        }
