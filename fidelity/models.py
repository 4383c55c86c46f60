"""A fidelity study: its items and requests, the prompts made from them, the simulators, and
every answer, people's and simulators', to the same prompts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from fidelity.content import (
    AnswerPayload,
    PromptContent,
    content_from_json,
    payload_from_json,
)


class Task(models.TextChoices):
    ITEMS_TALK = "items_talk", _("Items talk")
    BIN_PREF = "bin_pref", _("Binary preference")
    OPEN_PREF = "open_pref", _("Open preference")
    REC_REQUEST = "rec_request", _("Recommendation request")
    FEEDBACK = "feedback", _("Feedback")


class Study(models.Model):
    """One fidelity study: people and simulators answer the prompts made from its data."""

    class Language(models.TextChoices):
        ENGLISH = "en", _("English")
        CHINESE = "zh", _("Chinese")

    name = models.CharField(_("name"), max_length=200, unique=True)
    language = models.CharField(
        _("language"), max_length=8, choices=Language.choices, default=Language.ENGLISH
    )
    catalog = models.ForeignKey(
        "annotation.Catalog",
        verbose_name=_("item catalog"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="fidelity_studies",
        help_text=_("Item mentions in free-text answers are found by title in this catalog."),
    )
    seed = models.PositiveIntegerField(_("seed"), default=42)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("fidelity study")
        verbose_name_plural = _("fidelity studies")

    def __str__(self) -> str:
        return self.name


class StudyItem(models.Model):
    """An item with its average rating and number of ratings (from people)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="items")
    item_id = models.CharField(_("item id"), max_length=255)
    title = models.CharField(_("title"), max_length=500)
    avg_rating = models.FloatField(_("average rating"))
    n_ratings = models.PositiveIntegerField(_("number of ratings"))

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "item_id"], name="studyitem_id_unique")
        ]

    def __str__(self) -> str:
        return self.title


class StudyRequest(models.Model):
    """A real request for recommendations with the items and text that answered it."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="requests")
    external_id = models.CharField(_("id"), max_length=255)
    request = models.TextField(_("request"))
    answer_items = models.JSONField(_("answer items"), default=list)
    answer_text = models.TextField(_("answer text"), blank=True)

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "external_id"], name="studyrequest_id_unique")
        ]

    def __str__(self) -> str:
        return self.external_id


class Prompt(models.Model):
    """One prompt of one task, shown alike to people and simulators.

    ``content`` is the JSON of a `fidelity.content` type (read it with ``shown()``); ``key`` is
    stable within the study (``bin_pref-3``) and names the prompt in exports."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="prompts")
    task = models.CharField(_("task"), max_length=16, choices=Task.choices)
    key = models.CharField(_("key"), max_length=64)
    position = models.PositiveIntegerField(_("position"))
    content = models.JSONField(_("shown content"))

    class Meta:
        ordering = ["study", "task", "position"]
        constraints = [models.UniqueConstraint(fields=["study", "key"], name="prompt_key_unique")]

    def __str__(self) -> str:
        return self.key

    def shown(self) -> PromptContent:
        return content_from_json(self.task, self.content)


class Simulator(models.Model):
    """An LLM answering as a user, in one of the paper's configurations."""

    class Configuration(models.TextChoices):
        DI = "DI", _("Direct instruction (DI)")
        DI_PP = "DI+PP", _("Direct instruction with a pickiness persona (DI+PP)")
        IH = "IH", _("Interaction history (IH)")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="simulators")
    label = models.CharField(_("label"), max_length=80)
    configuration = models.CharField(
        _("configuration"), max_length=8, choices=Configuration.choices
    )
    llm = models.JSONField(
        _("endpoint settings"),
        default=dict,
        help_text=_("A named credential, a model and how hard to call it; never a key."),
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "label"], name="simulator_label_unique")
        ]

    def __str__(self) -> str:
        return self.label


class Answer(models.Model):
    """One responder's answer to one prompt: a person's, or a simulator's.

    ``group`` is the responder group the report measures (``people`` or the simulator's label);
    ``responder`` names the responder within it. ``payload`` is the JSON of a
    `fidelity.content` payload (read it with ``said()``)."""

    class Source(models.TextChoices):
        PEOPLE = "people", _("People")
        SIMULATOR = "simulator", _("Simulator")

    PEOPLE_GROUP = "people"

    prompt = models.ForeignKey(Prompt, on_delete=models.CASCADE, related_name="answers")
    group = models.CharField(_("group"), max_length=80)
    responder = models.CharField(_("responder"), max_length=120)
    source = models.CharField(_("source"), max_length=16, choices=Source.choices)
    simulator = models.ForeignKey(
        Simulator, on_delete=models.CASCADE, null=True, blank=True, related_name="answers"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="fidelity_answers",
    )
    payload = models.JSONField(_("answer"))
    created_at = models.DateTimeField(_("answered"), default=timezone.now)

    class Meta:
        ordering = ["prompt", "group", "responder"]
        constraints = [
            models.UniqueConstraint(
                fields=["prompt", "group", "responder"], name="answer_once_per_responder"
            )
        ]

    def __str__(self) -> str:
        return f"{self.prompt.key} {self.group}/{self.responder}"

    def said(self) -> AnswerPayload:
        return payload_from_json(self.payload)


class PeopleCampaign(models.Model):
    """The annotation campaign in which people answer one task's prompts of a study.

    Each of its transcripts is one prompt (``external_id`` is the prompt's key); see
    `fidelity.people`."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="people_campaigns")
    task = models.CharField(_("task"), max_length=16, choices=Task.choices)
    campaign = models.OneToOneField(
        "annotation.Campaign",
        verbose_name=_("annotation campaign"),
        on_delete=models.CASCADE,
        related_name="fidelity_task",
    )

    class Meta:
        ordering = ["study", "task"]
        constraints = [
            models.UniqueConstraint(fields=["study", "task"], name="peoplecampaign_task_unique")
        ]

    def __str__(self) -> str:
        return f"{self.study} · {self.task}"
