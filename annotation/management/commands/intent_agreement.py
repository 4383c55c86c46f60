"""``manage.py intent_agreement CAMPAIGN TRACK``: α among annotators and their F against gold."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from dataclasses import asdict
from typing import Any

from django.core.management.base import BaseCommand

from annotation.from_intent.agreement import intent_agreement
from annotation.models import Campaign
from evalsite.commands import named_or_numbered
from intent.models import Track


class Command(BaseCommand):
    help = "Krippendorff's α among the annotators of intent labels, and each one's official F."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign", help="the annotation campaign's name or id")
        parser.add_argument("track", help="the intent track's name or id")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = named_or_numbered(Campaign.objects.all(), options["campaign"], "campaign")
        track = named_or_numbered(Track.objects.all(), options["track"], "intent track")
        result = intent_agreement(campaign, track)
        found = asdict(result)
        # The verdict as the agreement command gives it: stands_in, its checks and its sentence.
        for row, labeller in zip(found["llm"], result.llm, strict=True):
            row["verdict"] = None if labeller.verdict is None else labeller.verdict.as_json()
        self.stdout.write(json.dumps(found, ensure_ascii=False))
