"""Intent utterances become annotation items, with the track's label set as one nominal question.

The one place where annotation reads intent tracks. Each utterance of a split is a transcript of
one user turn; its id is ``intent-<track>-<utterance id>``, and its gold label stays in the
intent track: nothing an annotator is shown carries it. The question's levels are the labels,
in the track's order (level ``i`` is label ``i``), measured at the nominal level.
"""

from __future__ import annotations

from typing import Any

from annotation.imports.result import ImportResult
from annotation.imports.rows import import_rows
from annotation.models import Campaign, Rubric
from annotation.rubrics import load_rubric
from intent.labels import GLOSSES
from intent.models import Track

QUESTION_KEY = "intent"


def external_id(track: Track, uid: str) -> str:
    return f"intent-{track.pk}-{uid}"


def rubric_data(track: Track) -> dict[str, Any]:
    labels = track.label_tuple
    return {
        "key": f"intent-track-{track.pk}",
        "version": 1,
        "name_en": f"Intent: {track.name}"[:200],
        "name_zh": f"意图：{track.name}"[:200],
        "description": "One nominal question: the intent of a single user utterance.",
        "dimensions": [
            {
                "key": QUESTION_KEY,
                "name_en": "Intent",
                "name_zh": "意图",
                "question_en": "Which intent does the user's utterance express?",
                "question_zh": "用户的这句话表达的是哪种意图？",
                "kind": "likert",
                "scale": [0, len(labels) - 1],
                "level_of_measurement": "nominal",
                "levels": [
                    {
                        "value": value,
                        "label_en": label,
                        "label_zh": label,
                        "description_en": GLOSSES.get(label, (label, label))[0],
                        "description_zh": GLOSSES.get(label, (label, label))[1],
                    }
                    for value, label in enumerate(labels)
                ],
            }
        ],
    }


def intent_rubric(track: Track) -> Rubric:
    existing = Rubric.objects.filter(key=f"intent-track-{track.pk}", version=1).first()
    return existing if existing is not None else load_rubric(rubric_data(track))[0]


def send_utterances(track: Track, split: str, campaign_name: str) -> ImportResult:
    """Import ``split`` of ``track`` into the annotation campaign (made with the intent rubric)."""
    Campaign.objects.get_or_create(name=campaign_name, defaults={"rubric": intent_rubric(track)})
    rows = [
        {
            "id": external_id(track, uid),
            "system": "utterance",
            "dataset": f"intent: {track.name}"[:100],
            "lang": "zh",
            "turns": [{"role": "user", "text": query}],
            "metadata": {"intent_track": track.pk, "utterance": uid},
        }
        for uid, query in track.utterances.filter(split=split)
        .order_by("position")
        .values_list("uid", "query")
    ]
    return import_rows(campaign_name, rows, source=f"intent track {track.name}")


def track_of(campaign: Campaign) -> Track | None:
    """The intent track whose labels a campaign's question holds, or None for other campaigns."""
    prefix = "intent-track-"
    key = campaign.rubric.key
    if not key.startswith(prefix) or not key[len(prefix) :].isdigit():
        return None
    return Track.objects.filter(pk=int(key[len(prefix) :])).first()
