"""The user turns of ended live dialogues become intent utterances to label.

Each user message of a live campaign's ended dialogues (judged or simulated) is an item of one
user turn in an intent annotation campaign, with the intent track's labels as the question.
They have no gold label: the intent report gives α among annotators over them, and scores
annotators and LLMs against gold only on the track's own utterances.
"""

from __future__ import annotations

from annotation.from_intent.utterances import intent_rubric
from annotation.imports.result import ImportResult
from annotation.imports.rows import import_rows
from annotation.models import Campaign as AnnotationCampaign
from intent.models import Track
from liveeval.models import Campaign, ChatSession, Message


def send_user_turns(campaign: Campaign, track: Track, campaign_name: str) -> ImportResult:
    """Import the user turns of ``campaign``'s ended dialogues into ``campaign_name``."""
    AnnotationCampaign.objects.get_or_create(
        name=campaign_name, defaults={"rubric": intent_rubric(track)}
    )
    messages = (
        Message.objects.filter(
            session__campaign=campaign,
            session__status=ChatSession.Status.ENDED,
            role=Message.Role.USER,
        )
        .select_related("session")
        .order_by("session_id", "position")
    )
    rows = [
        {
            "id": f"live-turn-{message.pk}",
            "system": "utterance",
            "dataset": f"live: {campaign.name}"[:100],
            "lang": message.session.lang,
            "turns": [{"role": "user", "text": message.text}],
            "metadata": {"live_campaign": campaign.name, "session": message.session_id},
        }
        for message in messages
        if message.text.strip()
    ]
    return import_rows(campaign_name, rows, source=f"live campaign {campaign.name}")
