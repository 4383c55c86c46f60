"""CONCEPT's persona emotions and age groups, named in the reader's language.

Transcripts, simulated judges and the CONCEPT scorecard store a persona as its English names
("Curiosity", "Adults"), which stay the data's keys; pages show them through `persona_name`.
A name outside CONCEPT's lists is shown as it is.
"""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

EMOTION_NAMES = {
    "Anticipation": pgettext_lazy("persona", "Anticipation"),
    "Boredom": pgettext_lazy("persona", "Boredom"),
    "Confusion": pgettext_lazy("persona", "Confusion"),
    "Curiosity": pgettext_lazy("persona", "Curiosity"),
    "Delight": pgettext_lazy("persona", "Delight"),
    "Disappointment": pgettext_lazy("persona", "Disappointment"),
    "Excitement": pgettext_lazy("persona", "Excitement"),
    "Frustration": pgettext_lazy("persona", "Frustration"),
    "Indifference": pgettext_lazy("persona", "Indifference"),
    "Satisfaction": pgettext_lazy("persona", "Satisfaction"),
    "Surprise": pgettext_lazy("persona", "Surprise"),
    "Trust": pgettext_lazy("persona", "Trust"),
}
AGE_GROUP_NAMES = {
    "Adults": pgettext_lazy("persona", "Adults"),
    "Children": pgettext_lazy("persona", "Children"),
    "Teens": pgettext_lazy("persona", "Teens"),
    "Seniors": pgettext_lazy("persona", "Seniors"),
}


def persona_name(name: str) -> str:
    """An emotion, an age group, or "Emotion/Age group", in the active language."""
    if "/" in name:
        return "/".join(persona_name(part) for part in name.split("/"))
    label = EMOTION_NAMES.get(name) or AGE_GROUP_NAMES.get(name)
    return str(label) if label is not None else name
