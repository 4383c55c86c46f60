"""``manage.py send_intent_utterances TRACK CAMPAIGN``: utterances or live user turns to label."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation.from_intent.utterances import send_utterances
from annotation.from_live.intent_turns import send_user_turns
from annotation.imports.problems import ImportFailed
from evalsite.commands import named_or_numbered
from intent.models import Track, Utterance
from liveeval.models import Campaign as LiveCampaign


class Command(BaseCommand):
    help = (
        "Send the utterances of an intent track's split to an annotation campaign (made if new), "
        "with the track's labels as one nominal question."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("track", help="the intent track's name or id")
        parser.add_argument("campaign", help="the annotation campaign's name")
        parser.add_argument("--split", choices=Utterance.Split.values, default="dev")
        parser.add_argument(
            "--from-live",
            metavar="LIVE_CAMPAIGN",
            help="send the user turns of this live campaign's ended dialogues instead",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        track = named_or_numbered(Track.objects.all(), options["track"], "intent track")
        try:
            if options["from_live"]:
                live = named_or_numbered(
                    LiveCampaign.objects.all(), options["from_live"], "live campaign"
                )
                result = send_user_turns(live, track, options["campaign"])
            else:
                result = send_utterances(track, options["split"], options["campaign"])
        except ImportFailed as error:
            raise CommandError(error.summary) from error
        self.stdout.write(
            f"{result.created} utterances added, {result.updated} updated in "
            f"{options['campaign']!r}."
        )
