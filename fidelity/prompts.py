"""The study's prompts, drawn from its items and requests with the study's seed.

- items talk: a persona who enjoyed a few items (those items are the prompt's items, removed
  from what the answer mentions);
- binary preference: every item (up to a limit), "would you watch it?";
- open preference: a sample of items, "what do you think of it?";
- recommendation request: a few liked items to write a request around;
- feedback: for each request, its real answer (positive) and another request's (negative) to
  accept or reject, and both side by side in a random order, which is recorded.

The same study and seed always give the same prompts. Prompts are made again only while no
one has answered them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from fidelity.content import (
    FeedbackContent,
    ItemContent,
    ItemsTalkContent,
    PromptContent,
    PromptItem,
    Recommendation,
    RecommendationKind,
    RecRequestContent,
    content_json,
)
from fidelity.models import Answer, Prompt, Study, StudyRequest


class PromptsError(ValueError):
    """The study's data cannot make these prompts, or someone has already answered them; the
    message is for the coordinator, in their language."""


@dataclass(frozen=True)
class PromptCounts:
    items_talk: int = 20
    bin_pref: int = 200
    open_pref: int = 20
    rec_request: int = 20
    feedback_requests: int = 20
    items_per_persona: int = 3
    liked_per_request: int = 3


PERSONA = {
    "en": "A viewer who enjoyed {titles}.",
    "zh": "一位喜欢{titles}的观众。",
}
_JOIN = {"en": ", ", "zh": "、"}


def persona_text(items: Sequence[PromptItem], language: str) -> str:
    lang = "zh" if language == "zh" else "en"
    return PERSONA[lang].format(titles=_JOIN[lang].join(item.title for item in items))


def _recommendation(
    kind: RecommendationKind, request: StudyRequest, titles: dict[str, str]
) -> Recommendation:
    items = tuple(PromptItem(item, titles.get(item, item)) for item in request.answer_items)
    return Recommendation(kind, items, request.answer_text, request.external_id)


def _feedback(
    requests: list[StudyRequest], titles: dict[str, str], limit: int, rng: random.Random
) -> list[PromptContent]:
    if len(requests) < 2:
        return []
    made: list[PromptContent] = []
    for index, request in enumerate(requests[:limit]):
        others = requests[:index] + requests[index + 1 :]
        positive = _recommendation("positive", request, titles)
        negative = _recommendation("negative", rng.choice(others), titles)
        made.append(FeedbackContent(request.external_id, request.request, positive))
        made.append(FeedbackContent(request.external_id, request.request, negative))
        if rng.random() < 0.5:
            made.append(
                FeedbackContent(request.external_id, request.request, None, positive, negative, "a")
            )
        else:
            made.append(
                FeedbackContent(request.external_id, request.request, None, negative, positive, "b")
            )
    return made


def draw_prompts(study: Study, counts: PromptCounts) -> dict[str, list[PromptContent]]:
    """Each task's prompt contents for ``study`` (pure given the study's data and seed)."""
    rng = random.Random(study.seed)
    items = [PromptItem(item.item_id, item.title) for item in study.items.order_by("id")]
    titles = {item.item_id: item.title for item in items}
    requests = list(study.requests.order_by("id"))
    drawn: dict[str, list[PromptContent]] = {}
    if len(items) >= counts.items_per_persona:
        drawn["items_talk"] = [
            ItemsTalkContent(persona_text(chosen, study.language), tuple(chosen))
            for chosen in (
                rng.sample(items, counts.items_per_persona) for _ in range(counts.items_talk)
            )
        ]
    chosen = items if len(items) <= counts.bin_pref else rng.sample(items, counts.bin_pref)
    drawn["bin_pref"] = [ItemContent(item.item_id, item.title) for item in chosen]
    chosen = rng.sample(items, min(counts.open_pref, len(items)))
    drawn["open_pref"] = [ItemContent(item.item_id, item.title) for item in chosen]
    if len(items) >= counts.liked_per_request:
        drawn["rec_request"] = [
            RecRequestContent(tuple(rng.sample(items, counts.liked_per_request)))
            for _ in range(counts.rec_request)
        ]
    drawn["feedback"] = _feedback(requests, titles, counts.feedback_requests, rng)
    return {task: contents for task, contents in drawn.items() if contents}


def make_prompts(study: Study, counts: PromptCounts | None = None) -> int:
    """Replace the study's prompts with newly drawn ones; refused once anyone has answered."""
    if Answer.objects.filter(prompt__study=study).exists():
        raise PromptsError(_("The prompts have answers already; they cannot be drawn again."))
    if study.people_campaigns.exists():
        raise PromptsError(
            _("The prompts were sent to people already; they cannot be drawn again.")
        )
    if not study.items.exists():
        raise PromptsError(_("The study has no items yet."))
    drawn = draw_prompts(study, counts or PromptCounts())
    with transaction.atomic():
        study.prompts.all().delete()
        Prompt.objects.bulk_create(
            Prompt(
                study=study,
                task=task,
                key=f"{task}-{position}",
                position=position,
                content=content_json(content),
            )
            for task, contents in drawn.items()
            for position, content in enumerate(contents, start=1)
        )
    return sum(len(contents) for contents in drawn.values())
