from __future__ import annotations

import secrets
from typing import Any, Literal, TypedDict

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from evalsite import roles
from evalsite.agreement import phrases
from evalsite.job_descriptions import JobDescription
from evalsite.job_descriptions import describe as describe_job


def _message_phrase_field() -> models.JSONField[Any, Any]:
    """A progress message's id and parameters, kept beside its English text (jobs and parts)."""
    return models.JSONField(
        _("message in any language"),
        default=dict,
        blank=True,
        help_text=_(
            "The progress message's id and parameters, to show it in the reader's language."
        ),
    )


class JobEvent(TypedDict):
    """A job's state as pushed to the pages watching it and drawn by ``jobs/_bar.html``."""

    id: int
    kind: str
    status: str
    status_label: str
    done: int
    total: int | None
    percent: int
    message: str
    # The message's id and parameters (``phrases.to_json``), so that each reader reads it in
    # their own language; empty for plain text.
    message_phrase: dict[str, Any]
    # Whether done / total count what the reader counts, rather than internal steps.
    counted: bool


class JobProgressMessage(TypedDict):
    """The channel-layer message sent to a job's group; ``job.progress`` maps to
    ``JobProgressConsumer.job_progress``."""

    type: Literal["job.progress"]
    job: JobEvent


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
    message_phrase = _message_phrase_field()
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
    attempts = models.PositiveSmallIntegerField(
        _("attempts"), default=0, help_text=_("How many times a worker has started this job.")
    )
    parts = models.PositiveSmallIntegerField(
        _("parts"),
        default=0,
        help_text=_("How many parts the job is split into, for several workers; 0 if not split."),
    )

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
        return self.finished_status(self.status)

    @classmethod
    def finished_status(cls, status: str) -> bool:
        """Whether a job in ``status`` has stopped, for good or until it is resumed."""
        return status in {cls.Status.DONE, cls.Status.FAILED, cls.Status.INTERRUPTED}

    @property
    def can_resume(self) -> bool:
        """Whether the job stopped before its end and its kind can continue it."""
        stopped = self.status in {self.Status.INTERRUPTED, self.Status.FAILED}
        return stopped and self.description.resumable

    @property
    def description(self) -> JobDescription:
        """The job in words, as its kind describes it."""
        return describe_job(self)

    def as_event(self) -> JobEvent:
        return {
            "id": self.pk,
            "kind": self.kind,
            "status": self.status,
            "status_label": str(self.get_status_display()),
            "done": self.done,
            "total": self.total,
            "percent": self.percent,
            "message": self.shown_message,
            "message_phrase": self.message_phrase,
            "counted": self.description.counted,
        }

    @property
    def shown_message(self) -> str:
        """The progress message in the active language, when it was stored as a phrase."""
        return message_in_language(self.message, self.message_phrase)

    def set_message(self, message: str) -> None:
        """Store a progress message; a `Phrase` is kept so that every reader reads it in
        their own language."""
        self.message = message[:500]
        self.message_phrase = (
            phrases.to_json(message) if isinstance(message, phrases.Phrase) else {}
        )


class JobPart(models.Model):
    """One share of a split job's items, run by one worker at a time, with its own checkpoint."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="job_parts")
    index = models.PositiveSmallIntegerField(_("index"))
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    done = models.PositiveIntegerField(_("done"), default=0)
    total = models.PositiveIntegerField(_("total"), null=True, blank=True)
    message = models.CharField(_("message"), max_length=500, blank=True)
    message_phrase = _message_phrase_field()
    errors = models.JSONField(_("errors"), default=list, blank=True)
    result = models.JSONField(_("result"), default=dict, blank=True)
    checkpoint = models.JSONField(_("checkpoint"), default=dict, blank=True)
    worker = models.CharField(_("worker"), max_length=100, blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    heartbeat_at = models.DateTimeField(_("heartbeat"), null=True, blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="one_part_per_index")]
        indexes = [models.Index(fields=["status", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"part {self.index} of job {self.job_id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in {self.Status.DONE, self.Status.FAILED}


class LLMCall(models.Model):
    """One request to an LLM, or one answer served from the cache, with its usage and cost.

    Every call is kept, so that a run's token usage and cost can be summed, and so
    that an identical request (same ``request_hash``) is answered from here when the
    caller asks for the cache: re-running an evaluation then costs nothing.
    """

    class Status(models.TextChoices):
        OK = "ok", _("Answered")
        INVALID = "invalid", _("Malformed structured answer")
        ERROR = "error", _("Failed")

    purpose = models.CharField(_("purpose"), max_length=200, blank=True)
    base_url = models.CharField(_("base URL"), max_length=500)
    model = models.CharField(_("model"), max_length=200)
    request_hash = models.CharField(_("request hash"), max_length=64)
    request = models.JSONField(_("request"))
    response = models.JSONField(
        _("response"),
        default=dict,
        blank=True,
        help_text=_("The assistant's message, as received, malformed or not."),
    )
    status = models.CharField(_("status"), max_length=8, choices=Status.choices)
    cached = models.BooleanField(_("served from the cache"), default=False)
    error = models.TextField(
        _("error"), blank=True, help_text=_("Why the call failed, or why its answer was refused.")
    )
    prompt_tokens = models.PositiveIntegerField(_("prompt tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(_("completion tokens"), default=0)
    cost = models.DecimalField(
        _("cost"),
        max_digits=14,
        decimal_places=6,
        null=True,
        blank=True,
        help_text=_("Unknown when no price is configured."),
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=1)
    latency_ms = models.PositiveIntegerField(_("latency (ms)"), default=0)
    created_at = models.DateTimeField(_("time"), default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("LLM call")
        indexes = [models.Index(fields=["request_hash", "status"])]

    def __str__(self) -> str:
        return f"{self.model} #{self.pk} ({self.status})"


def new_invitation_token() -> str:
    return secrets.token_urlsafe(24)


class Invitation(models.Model):
    """A link that lets people sign up with a role, and join a campaign, a set number of times."""

    token = models.CharField(
        _("token"), max_length=64, unique=True, default=new_invitation_token, editable=False
    )
    ROLE_CHOICES = [
        (roles.JUDGES, _("Judge")),
        (roles.ANNOTATORS, _("Annotator")),
        (roles.COORDINATORS, _("Coordinator")),
    ]

    role = models.CharField(_("role"), max_length=32, choices=ROLE_CHOICES)
    team = models.CharField(
        _("campaign"),
        max_length=64,
        blank=True,
        help_text=_("The campaign newcomers join, as 'app:id'; empty for none."),
    )
    team_name = models.CharField(_("campaign name"), max_length=200, blank=True)
    max_uses = models.PositiveIntegerField(_("uses allowed"), default=1)
    uses = models.PositiveIntegerField(_("uses"), default=0)
    expires_at = models.DateTimeField(_("expires"))
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("invitation")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(uses__lte=models.F("max_uses")), name="invitation_uses_within"
            ),
            models.CheckConstraint(
                condition=models.Q(max_uses__gte=1), name="invitation_max_uses_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role} ({self.uses}/{self.max_uses})"


class InterfaceLanguage(models.Model):
    """The interface language a person chose, applied wherever they log in."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="interface_language"
    )
    language = models.CharField(_("language"), max_length=16, choices=settings.LANGUAGES)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("interface language")

    def __str__(self) -> str:
        return f"{self.user} · {self.language}"


def message_in_language(message: str, phrase: dict[str, Any]) -> str:
    """A stored progress message in the active language: as it was written when it was plain
    text, or when its parameters no longer fit its translation."""
    if not phrase:
        return message
    try:
        return phrases.shown(phrases.from_json(phrase))
    except (KeyError, TypeError, ValueError):
        return message
