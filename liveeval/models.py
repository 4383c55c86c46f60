"""The records of live evaluation: systems, task cards, and every dialogue held with a system.

One ChatSession is kept for every dialogue, whoever held it: a judge in a
campaign, a simulated user, a coordinator trying a system in the sandbox, or
the ``talk`` command.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from evalsite.language import is_chinese
from liveeval.booking.models import (
    Booking,
    City,
    Flight,
    FlightCabin,
    Hotel,
    HotelRoom,
    Train,
    TrainSeat,
)
from liveeval.systems.base import DEFAULT_REPLY_TIMEOUT, MAX_REPLY_TIMEOUT

__all__ = [
    "DIALOGUE_LANGUAGES",
    "Booking",
    "Campaign",
    "ChatSession",
    "City",
    "DialogueSystem",
    "Flight",
    "FlightCabin",
    "Hotel",
    "HotelRoom",
    "Message",
    "Rating",
    "SystemAlias",
    "TaskCard",
    "Train",
    "TrainSeat",
]


class DialogueLang(models.TextChoices):
    """The languages a dialogue is held in; the interface language is chosen apart from it."""

    ZH = "zh", _("Chinese")
    EN = "en", _("English")


DIALOGUE_LANGUAGES = DialogueLang.choices


class DialogueSystem(models.Model):
    """A system under test. Judges only ever see its alias."""

    class Kind(models.TextChoices):
        REFERENCE = "reference", _("Built-in reference (rule-based)")
        BASELINE = "baseline", _("Built-in baseline (keyword lookup, no dialogue state)")
        HTTP = "http", _("External HTTP endpoint")
        OPENAI = "openai", _("OpenAI-compatible LLM agent")

    slug = models.SlugField(_("slug"), max_length=64, unique=True)
    name = models.CharField(_("real name"), max_length=200)
    alias = models.CharField(
        _("public alias"),
        max_length=64,
        unique=True,
        help_text=_(
            "A short name for coordinators and exports, e.g. 'System C'; judges see a random "
            "code per campaign instead."
        ),
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    config = models.JSONField(_("adapter configuration"), default=dict, blank=True)
    description = models.TextField(_("description"), blank=True)
    enabled = models.BooleanField(_("enabled"), default=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["slug"]
        verbose_name = _("dialogue system")

    def __str__(self) -> str:
        return f"{self.name} ({self.slug})"

    @property
    def is_baseline(self) -> bool:
        return self.kind == self.Kind.BASELINE


class TaskCard(models.Model):
    """An SMP-style test task: what the judge reads, and the goal a machine can check."""

    key = models.SlugField(_("key"), max_length=64, unique=True)
    title_zh = models.CharField(_("title (Chinese)"), max_length=200)
    title_en = models.CharField(_("title (English)"), max_length=200)
    description_zh = models.TextField(_("description (Chinese)"))
    description_en = models.TextField(_("description (English)"))
    goal = models.JSONField(
        _("goal"), help_text=_('{"intents": [{"domain": ..., "constraints": {...}}]}')
    )
    turn_penalty = models.PositiveIntegerField(
        _("turn penalty"),
        help_text=_("Turns charged to an uncompleted dialogue of this task."),
    )
    lang = models.CharField(
        _("language in a bilingual campaign"),
        max_length=8,
        choices=DialogueLang.choices,
        default=DialogueLang.ZH,
        help_text=_("The language its dialogues are held in when its campaign is bilingual."),
    )

    class Meta:
        ordering = ["key"]
        verbose_name = _("task card")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(turn_penalty__gte=1), name="taskcard_turn_penalty_positive"
            )
        ]

    def __str__(self) -> str:
        return self.key

    def title(self, lang: str) -> str:
        return self.title_zh if is_chinese(lang) else self.title_en

    def description(self, lang: str) -> str:
        return self.description_zh if is_chinese(lang) else self.description_en

    @property
    def domains(self) -> list[str]:
        return [str(intent.get("domain")) for intent in self.goal.get("intents", [])]


class Campaign(models.Model):
    """A live evaluation: which judges talk to which systems about which tasks, K times each."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    class Lang(models.TextChoices):
        ZH = "zh", _("Chinese")
        EN = "en", _("English")
        BILINGUAL = "bi", _("Bilingual (each task card in its own language)")

    name = models.CharField(_("name"), max_length=200, unique=True)
    systems = models.ManyToManyField(
        DialogueSystem, verbose_name=_("systems"), related_name="campaigns"
    )
    tasks = models.ManyToManyField(TaskCard, verbose_name=_("task cards"), related_name="campaigns")
    judges = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("judges"),
        related_name="live_campaigns",
        blank=True,
    )
    judgements_per_pair = models.PositiveSmallIntegerField(
        _("judgements per (task, system) pair"), default=3
    )
    max_turns = models.PositiveSmallIntegerField(
        _("maximum turns per dialogue"),
        default=20,
        help_text=_("Utterances of both sides; at most the turn penalty of every task."),
    )
    today = models.DateField(_("dialogue date"), help_text=_("The booking world's 'today'."))
    lang = models.CharField(
        _("dialogue language"),
        max_length=8,
        choices=Lang.choices,
        default=Lang.ZH,
        help_text=_(
            "The language of every task card and dialogue, whatever language the judges' "
            "interface is in."
        ),
    )
    reply_timeout = models.FloatField(
        _("reply timeout (seconds)"),
        default=DEFAULT_REPLY_TIMEOUT,
        validators=[MinValueValidator(0.1), MaxValueValidator(MAX_REPLY_TIMEOUT)],
        help_text=_("How long a system may take to answer, at most 60 seconds."),
    )
    status = models.CharField(
        _("status"), max_length=8, choices=Status.choices, default=Status.DRAFT
    )
    seed = models.PositiveIntegerField(_("plan seed"), default=42)
    late_rating = models.BooleanField(
        _("allow late rating"),
        default=False,
        help_text=_(
            "Let judges rate conversations that ended before the campaign was closed, "
            "after it is closed."
        ),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    opened_at = models.DateTimeField(_("opened"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    archived_at = models.DateTimeField(
        _("archived"),
        null=True,
        blank=True,
        help_text=_("An archived campaign is hidden from judges and takes no new work."),
    )
    task_languages = models.JSONField(
        _("dialogue language of each task card"),
        default=dict,
        blank=True,
        help_text=_(
            "In a bilingual campaign: task card id to language, where it differs from the "
            "card's own."
        ),
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("live campaign")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(judgements_per_pair__gte=1), name="campaign_k_positive"
            ),
            models.CheckConstraint(
                condition=models.Q(max_turns__gte=2), name="campaign_max_turns_at_least_two"
            ),
            models.CheckConstraint(
                condition=models.Q(reply_timeout__gt=0, reply_timeout__lte=MAX_REPLY_TIMEOUT),
                name="campaign_reply_timeout_bounded",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("liveeval:campaign_detail", args=[self.pk])

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    def dialogue_lang(self, task: TaskCard) -> str:
        """The language a dialogue about ``task`` is held in: the campaign's, or, in a
        bilingual campaign, the one chosen for the card here, else the card's own."""
        if self.lang != self.Lang.BILINGUAL:
            return self.lang
        return str(self.task_languages.get(str(task.pk), task.lang))


class SystemAlias(models.Model):
    """The name judges know a system by in one campaign: random, and new in every campaign."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="aliases")
    system = models.ForeignKey(DialogueSystem, on_delete=models.CASCADE, related_name="+")
    code = models.CharField(_("alias code"), max_length=8)

    class Meta:
        verbose_name = _("system alias in a campaign")
        constraints = [
            models.UniqueConstraint(fields=["campaign", "system"], name="alias_one_per_system"),
            models.UniqueConstraint(fields=["campaign", "code"], name="alias_unique_in_campaign"),
        ]

    def __str__(self) -> str:
        return self.code


def new_session_token() -> str:
    return secrets.token_urlsafe(24)


class ChatSession(models.Model):
    """One dialogue with one system."""

    class Kind(models.TextChoices):
        JUDGED = "judged", _("Judged")
        SIMULATED = "simulated", _("Simulated")
        SANDBOX = "sandbox", _("Sandbox")
        TALK = "talk", _("Command line")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        OPEN = "open", _("Open")
        ENDED = "ended", _("Ended")

    class EndReason(models.TextChoices):
        USER = "user", _("Ended by the user")
        SYSTEM = "system", _("Ended by the system")
        TURN_LIMIT = "turn_limit", _("Turn limit reached")
        ABANDONED = "abandoned", _("Abandoned (the judge left the campaign)")
        CAMPAIGN_CLOSED = "campaign_closed", _("Ended because the campaign was closed")

    system = models.ForeignKey(DialogueSystem, on_delete=models.PROTECT, related_name="sessions")
    task = models.ForeignKey(
        TaskCard, null=True, blank=True, on_delete=models.PROTECT, related_name="sessions"
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.CASCADE, related_name="sessions"
    )
    position = models.PositiveIntegerField(
        _("position in the judge's queue"), null=True, blank=True
    )
    persona = models.JSONField(
        _("persona"), default=dict, blank=True, help_text=_("A simulated user's persona.")
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.OPEN
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="chat_sessions",
        help_text=_("The judge or coordinator who holds the dialogue."),
    )
    lang = models.CharField(_("language"), max_length=8, default="zh")
    today = models.DateField(_("dialogue date"), help_text=_("The booking world's 'today'."))
    token = models.CharField(
        _("token"), max_length=64, unique=True, default=new_session_token, editable=False
    )
    state = models.JSONField(_("system state"), default=dict, blank=True)
    replying_since = models.DateTimeField(
        _("awaiting a reply since"),
        null=True,
        blank=True,
        help_text=_("Set while the system answers, so one message is answered at a time."),
    )
    reply_deadline = models.DateTimeField(
        _("reply expected by"),
        null=True,
        blank=True,
        help_text=_("After this, an unanswered message gets a notice and the session is freed."),
    )
    replying_worker = models.CharField(
        _("answering process"), max_length=200, blank=True, editable=False
    )
    end_reason = models.CharField(
        _("end reason"), max_length=16, choices=EndReason.choices, blank=True
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("chat session")
        indexes = [models.Index(fields=["campaign", "user", "status", "position"])]

    def __str__(self) -> str:
        return f"session {self.pk} ({self.kind}, {self.status})"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    def turn_count(self) -> int:
        """Turns as SMP counts them: the utterances of both sides."""
        return self.messages.filter(role__in=[Message.Role.USER, Message.Role.SYSTEM]).count()

    def history(self) -> list[dict[str, Any]]:
        return [
            {"role": role, "text": text}
            for role, text in self.messages.filter(
                role__in=[Message.Role.USER, Message.Role.SYSTEM]
            ).values_list("role", "text")
        ]

    def end(self, reason: str) -> None:
        self.status = self.Status.ENDED
        self.end_reason = reason
        self.ended_at = timezone.now()
        self.save(update_fields=["status", "end_reason", "ended_at"])


class Message(models.Model):
    """One utterance of a dialogue, or a notice shown to the user (never sent to the system)."""

    class Role(models.TextChoices):
        USER = "user", _("User")
        SYSTEM = "system", _("System")
        NOTICE = "notice", _("Notice")

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="messages")
    position = models.PositiveIntegerField(_("position"))
    role = models.CharField(_("role"), max_length=8, choices=Role.choices)
    text = models.TextField(_("text"))
    created_at = models.DateTimeField(_("time"), default=timezone.now)
    latency_ms = models.PositiveIntegerField(_("latency (ms)"), null=True, blank=True)
    feelings = models.TextField(
        _("inner state"), blank=True, help_text=_("A simulated user's inner state for this turn.")
    )

    class Meta:
        ordering = ["session", "position"]
        constraints = [
            models.UniqueConstraint(fields=["session", "position"], name="message_unique_position")
        ]

    def __str__(self) -> str:
        return f"{self.session_id}#{self.position} {self.role}"


class Rating(models.Model):
    """A judge's verdict on one dialogue, as in SMP2018: C, Sa, F, G and a comment."""

    session = models.OneToOneField(ChatSession, on_delete=models.CASCADE, related_name="rating")
    completed = models.BooleanField(_("task completed"))
    satisfaction = models.SmallIntegerField(_("satisfaction"))
    fluency = models.SmallIntegerField(_("fluency"))
    guidance = models.SmallIntegerField(_("guidance"))
    comment = models.TextField(_("comment"), blank=True)
    reasons = models.JSONField(
        _("reasons"), default=dict, blank=True, help_text=_("A simulated judge's reason per item.")
    )
    created_at = models.DateTimeField(_("rated"), default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(satisfaction__gte=-2, satisfaction__lte=2),
                name="rating_satisfaction_range",
            ),
            models.CheckConstraint(
                condition=models.Q(fluency__gte=-1, fluency__lte=1), name="rating_fluency_range"
            ),
            models.CheckConstraint(
                condition=models.Q(guidance__gte=0, guidance__lte=1), name="rating_guidance_range"
            ),
        ]

    def __str__(self) -> str:
        return f"rating of session {self.session_id}"
