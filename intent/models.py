"""Intent tracks: their labelled utterances, the teams that take part and their submissions."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from intent.labels import SMP_LABELS


def default_labels() -> list[str]:
    return list(SMP_LABELS)


class Track(models.Model):
    """A shared task: a label set, a dataset, teams, and a public then private leaderboard."""

    class Phase(models.TextChoices):
        OPEN = "open", _("open: public leaderboard")
        CLOSED = "closed", _("closed: final leaderboard")

    name = models.CharField(_("name"), max_length=200, unique=True)
    description = models.TextField(_("description"), blank=True)
    labels = models.JSONField(_("labels"), default=default_labels)
    phase = models.CharField(_("phase"), max_length=10, choices=Phase, default=Phase.OPEN)
    daily_quota = models.PositiveIntegerField(_("submissions per team per day"), default=5)
    public_share = models.FloatField(
        _("share of the test split on the public leaderboard"), default=0.5
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(public_share__gt=0) & models.Q(public_share__lt=1),
                name="intent_track_public_share_between_0_and_1",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("intent:track", args=[self.pk])

    @property
    def label_tuple(self) -> tuple[str, ...]:
        return tuple(str(label) for label in self.labels)


class Utterance(models.Model):
    """One labelled utterance of a track's dataset; ``part`` splits the test set in two."""

    class Split(models.TextChoices):
        TRAIN = "train", _("train")
        DEV = "dev", _("dev")
        TEST = "test", _("test")

    class Part(models.TextChoices):
        NONE = "", _("not test")
        PUBLIC = "public", _("public")
        PRIVATE = "private", _("private")

    track = models.ForeignKey(Track, on_delete=models.CASCADE, related_name="utterances")
    uid = models.CharField(_("id"), max_length=100)
    query = models.TextField(_("query"))
    label = models.CharField(_("label"), max_length=100)
    split = models.CharField(_("split"), max_length=10, choices=Split)
    part = models.CharField(max_length=10, choices=Part, blank=True, default=Part.NONE)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["track", "split", "position"]
        constraints = [
            models.UniqueConstraint(fields=["track", "uid"], name="intent_utterance_unique_id")
        ]

    def __str__(self) -> str:
        return f"{self.uid}: {self.query}"


class Team(models.Model):
    """Participants who submit together to one track."""

    track = models.ForeignKey(Track, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(_("team name"), max_length=100)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="intent_teams")
    # Checked by evalsite.endpoint_url (the systems' check), not by Django's URLValidator,
    # which refuses hosts such as "http://classifier:8000/" that teams run next to EvalSite.
    endpoint_url = models.CharField(_("endpoint URL"), max_length=2000, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["track", "name"], name="intent_team_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class Submission(models.Model):
    """A team's predictions for the test split, from a file or from its endpoint.

    ``predictions`` maps every test id to a label, or to null when the endpoint gave none;
    ``failed_batches`` lists the batches an endpoint did not answer properly.
    """

    class Source(models.TextChoices):
        FILE = "file", _("file")
        ENDPOINT = "endpoint", _("endpoint")

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        SCORED = "scored", _("scored")
        FAILED = "failed", _("failed")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="submissions")
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    source = models.CharField(max_length=10, choices=Source, default=Source.FILE)
    filename = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=10, choices=Status, default=Status.SCORED)
    predictions = models.JSONField(default=dict)
    failed_batches = models.JSONField(default=list)
    public_f = models.FloatField(null=True, blank=True)
    private_f = models.FloatField(null=True, blank=True)
    job = models.ForeignKey(
        "evalsite.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.team} #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("intent:submission", args=[self.pk])

    def prediction_of(self, uid: str) -> Any:
        return self.predictions.get(uid)
