"""``manage.py send_intent_utterances TRACK CAMPAIGN``: intent utterances to label."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation.from_intent.utterances import send_utterances
from annotation.imports.problems import ImportFailed
from evalsite.commands import named_or_numbered
from intent.models import Track, Utterance


class Command(BaseCommand):
    help = (
        "Send the utterances of an intent track's split to an annotation campaign (made if new), "
        "with the track's labels as one nominal question."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("track", help="the intent track's name or id")
        parser.add_argument("campaign", help="the annotation campaign's name")
        parser.add_argument("--split", choices=Utterance.Split.values, default="dev")

    def handle(self, *args: Any, **options: Any) -> None:
        track = named_or_numbered(Track.objects.all(), options["track"], "intent track")
        try:
            result = send_utterances(track, options["split"], options["campaign"])
        except ImportFailed as error:
            raise CommandError(error.summary) from error
        self.stdout.write(
            f"{result.created} utterances added, {result.updated} updated in "
            f"{options['campaign']!r}."
        )
