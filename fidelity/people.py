"""People's side of a fidelity study: its prompts as annotation campaigns, and back as answers.

`send_prompts` puts each task's prompts into an annotation campaign of their own (one item per
prompt, ``external_id`` = the prompt's key, exactly R people per item, the task's questions
from `fidelity.people_questions`); sending again adds only prompts not sent yet.
`collect_answers` reads every submitted annotation back as an `Answer` of the ``people`` group,
with a pseudonymous responder id: the same person is the same responder within a study, and
their username never reaches the report. Annotators see the prompts only: never a simulator's
answer, and never another person's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils import translation
from django.utils.crypto import salted_hmac

from annotation.concept.catalogs import Catalog
from annotation.concept.mentions import split_year
from annotation.models import Assignment, Campaign, Response, Transcript
from fidelity import people_questions as q
from fidelity.content import (
    AcceptRejectPayload,
    AnswerPayload,
    Aspect,
    AspectsPayload,
    ChoicePayload,
    FeedbackContent,
    ItemContent,
    ItemsTalkContent,
    MentionsPayload,
    PromptContent,
    Recommendation,
    RecRequestContent,
    TextPayload,
    YesNoPayload,
    payload_json,
)
from fidelity.matching import mentioned_items, study_catalog
from fidelity.models import Answer, PeopleCampaign, Prompt, Study, Task

DEFAULT_PEOPLE_PER_PROMPT = 3
_ASPECT_SEPARATORS = re.compile(r"[\n,;，；、]+")
_LIST_MARKS = " \t-•*·.。"


@dataclass(frozen=True)
class Sent:
    task: str
    campaign: Campaign
    added: int


@dataclass(frozen=True)
class Collected:
    stored: int
    incomplete: int


def responder_id(study: Study, user_id: int) -> str:
    """A person's pseudonym in ``study``: stable, and not their username."""
    digest = salted_hmac("fidelity.people", f"{study.pk}:{user_id}").hexdigest()
    return f"person-{digest[:10]}"


def _recommendation_text(recommendation: Recommendation) -> str:
    return recommendation.text or ", ".join(item.title for item in recommendation.items)


def transcript_fields(content: PromptContent) -> dict[str, object]:
    """What an item shows for a prompt: its text, a list under it, or two recommendations."""
    if isinstance(content, ItemsTalkContent):
        return {"prompt": content.persona, "prompt_items": [i.title for i in content.items]}
    if isinstance(content, ItemContent):
        return {"prompt": content.title}
    if isinstance(content, RecRequestContent):
        return {"prompt_items": [item.title for item in content.liked]}
    if content.recommendation is not None:
        return {
            "prompt": content.request,
            "prompt_items": [_recommendation_text(content.recommendation)],
        }
    assert content.a is not None and content.b is not None
    return {
        "kind": Transcript.Kind.PAIRWISE,
        "prompt": content.request,
        "response_a": {"text": _recommendation_text(content.a)},
        "response_b": {"text": _recommendation_text(content.b)},
    }


def _campaign_name(study: Study, task: str) -> str:
    with translation.override("en"):
        name = f"{study.name[:150]} · {Task(task).label}"
    if Campaign.objects.filter(name=name).exists():
        name = f"{name} ({study.pk})"
    return name


def _campaign(study: Study, task: str, people: int) -> Campaign:
    link = study.people_campaigns.select_related("campaign").filter(task=task).first()
    if link is not None:
        return link.campaign
    campaign = Campaign.objects.create(
        name=_campaign_name(study, task), rubric=q.rubric_for(task), annotations_per_item=people
    )
    PeopleCampaign.objects.create(study=study, task=task, campaign=campaign)
    return campaign


def send_prompts(study: Study, people: int = DEFAULT_PEOPLE_PER_PROMPT) -> list[Sent]:
    """Put the study's prompts not sent yet into each task's campaign; ``people`` is R for a
    task's new campaign (a campaign keeps its R)."""
    sent: list[Sent] = []
    with transaction.atomic():
        for task in Task.values:
            prompts = list(study.prompts.filter(task=task).order_by("position"))
            if not prompts:
                continue
            campaign = _campaign(study, task, people)
            known = set(campaign.transcripts.values_list("external_id", flat=True))
            new = [prompt for prompt in prompts if prompt.key not in known]
            Transcript.objects.bulk_create(
                Transcript(
                    campaign=campaign,
                    external_id=prompt.key,
                    lang=study.language,
                    position=prompt.position,
                    shuffle_key=prompt.position,
                    **{"kind": Transcript.Kind.PROMPT, **transcript_fields(prompt.shown())},
                )
                for prompt in new
            )
            sent.append(Sent(task, campaign, len(new)))
    return sent


def _lines(text: str) -> list[str]:
    return [line.strip(_LIST_MARKS) for line in text.splitlines() if line.strip(_LIST_MARKS)]


def mentions(text: str, catalog: Catalog) -> tuple[str, ...]:
    """The items a person names: by the catalog's title matching, line by line; a line that
    is a bare title ("Alien", "Heat 1995" is not) is looked up whole."""
    found: list[str] = []
    for line in _lines(text):
        named = mentioned_items(line, catalog)
        if not named:
            item = catalog.find(*split_year(line))
            named = (item.id,) if item is not None else ()
        found.extend(named)
    return tuple(found)


def _aspects(text: str, sentiment: str) -> list[Aspect]:
    parts = (part.strip(_LIST_MARKS) for part in _ASPECT_SEPARATORS.split(text))
    return [Aspect(part, sentiment) for part in parts if part]


def payload(
    prompt: Prompt,
    answers: dict[str, Response],
    swapped: bool,
    catalog: Catalog,
) -> AnswerPayload | None:
    """The typed answer one person's responses to one prompt give; None when incomplete."""
    content = prompt.shown()

    def text(key: str) -> str | None:
        response = answers.get(key)
        return None if response is None else response.text

    if isinstance(content, ItemsTalkContent):
        films = text(q.FILMS)
        return None if films is None else MentionsPayload(films, mentions(films, catalog))
    if prompt.task == Task.BIN_PREF:
        watch = answers.get(q.WATCH)
        return None if watch is None else YesNoPayload(watch.value == 1)
    if isinstance(content, ItemContent):
        review = text(q.REVIEW)
        if review is None:
            return None
        aspects = _aspects(text(q.LIKED_ASPECTS) or "", "positive")
        aspects += _aspects(text(q.DISLIKED_ASPECTS) or "", "negative")
        aspects += _aspects(text(q.NEUTRAL_ASPECTS) or "", "neutral")
        return AspectsPayload(review, tuple(aspects))
    if isinstance(content, RecRequestContent):
        request = text(q.REQUEST)
        return None if request is None else TextPayload(request)
    return _feedback(content, answers, swapped)


def _feedback(
    content: FeedbackContent, answers: dict[str, Response], swapped: bool
) -> AnswerPayload | None:
    if not content.is_comparison:
        accept = answers.get(q.ACCEPT)
        return None if accept is None else AcceptRejectPayload(accept.value == 1)
    choice = answers.get(q.CHOICE)
    if choice is None:
        return None
    # Stored in the item's own terms: the lowest value is A, the highest B, the middle neither.
    chosen = {0: "a", 1: "neither", 2: "b"}[choice.value]
    return ChoicePayload(chosen, "b" if swapped else "a")  # type: ignore[arg-type]


def _submitted(campaign: Campaign) -> Iterable[Assignment]:
    return (
        Assignment.objects.filter(campaign=campaign, status=Assignment.Status.SUBMITTED)
        .select_related("transcript")
        .prefetch_related("responses__dimension")
        .order_by("pk")
    )


def collect_answers(study: Study) -> Collected:
    """Store every submitted annotation of the study's prompts as a people's `Answer`.

    A revised annotation replaces the answer it gave before."""
    prompts = {prompt.key: prompt for prompt in study.prompts.all()}
    catalog = study_catalog(study)
    stored = incomplete = 0
    with transaction.atomic():
        for link in study.people_campaigns.select_related("campaign"):
            for assignment in _submitted(link.campaign):
                prompt: Prompt | None = prompts.get(assignment.transcript.external_id)
                if prompt is None:
                    incomplete += 1
                    continue
                answers = {r.dimension.key: r for r in assignment.responses.all()}
                said = payload(prompt, answers, assignment.swapped, catalog)
                if said is None:
                    incomplete += 1
                    continue
                Answer.objects.update_or_create(
                    prompt=prompt,
                    group=Answer.PEOPLE_GROUP,
                    responder=responder_id(study, assignment.annotator_id),
                    defaults={
                        "source": Answer.Source.PEOPLE,
                        "user_id": assignment.annotator_id,
                        "payload": payload_json(said),
                    },
                )
                stored += 1
    return Collected(stored, incomplete)
