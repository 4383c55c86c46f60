"""A study's stored answers read into the typed inputs of each task's measures, per group.

People's group comes first, then each simulator's, in the order they were added. For binary
preference and feedback, the same answers also come as (prompt, responder, score) rows for the
alt-test, with each prompt as an item and each person as a human annotator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evalsite.fidelity.bin_pref import BinPrefAnswer
from evalsite.fidelity.feedback import AcceptRejectAnswer, ComparisonAnswer
from evalsite.fidelity.items_talk import ItemsTalkAnswer
from evalsite.fidelity.open_pref import AspectLabel
from evalsite.fidelity.rec_request import RecRequestText
from fidelity.content import (
    AcceptRejectPayload,
    AspectsPayload,
    ChoicePayload,
    FeedbackContent,
    ItemContent,
    ItemsTalkContent,
    MentionsPayload,
    TextPayload,
    YesNoPayload,
)
from fidelity.models import Answer, Study

PEOPLE = Answer.PEOPLE_GROUP


@dataclass
class GroupAnswers:
    """Everything one responder group answered, as each measure reads it."""

    group: str
    items_talk: list[ItemsTalkAnswer] = field(default_factory=list)
    bin_pref: list[BinPrefAnswer] = field(default_factory=list)
    open_pref: list[AspectLabel] = field(default_factory=list)
    open_pref_texts: int = 0
    rec_request: list[RecRequestText] = field(default_factory=list)
    # Each request's embedding and its model ("" and () while not embedded), in order.
    rec_request_embeddings: list[tuple[str, tuple[float, ...]]] = field(default_factory=list)
    accept_reject: list[AcceptRejectAnswer] = field(default_factory=list)
    comparison: list[ComparisonAnswer] = field(default_factory=list)
    # (prompt key, responder, 1.0 for yes / accept, 0.0 for no / reject)
    bin_pref_scores: list[tuple[str, str, float]] = field(default_factory=list)
    accept_scores: list[tuple[str, str, float]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {
            "items_talk": len(self.items_talk),
            "bin_pref": len(self.bin_pref),
            "open_pref": self.open_pref_texts,
            "rec_request": len(self.rec_request),
            "feedback": len(self.accept_reject) + len(self.comparison),
        }


def _comparison(
    content: FeedbackContent, responder: str, key: str, choice: str, shown_first: str = "a"
) -> ComparisonAnswer:
    positive_first = content.positive == shown_first
    if choice == "neither":
        chosen = "neither"
    else:
        chosen = "positive" if choice == content.positive else "negative"
    return ComparisonAnswer(responder, key, chosen, positive_first)  # type: ignore[arg-type]


def _add(
    target: GroupAnswers, answer: Answer, ratings: dict[str, float], labeller: str = ""
) -> None:
    prompt = answer.prompt
    content = prompt.shown()
    said = answer.said()
    who = answer.responder
    if isinstance(content, ItemsTalkContent) and isinstance(said, MentionsPayload):
        items = tuple(item.item_id for item in content.items) + said.history
        target.items_talk.append(ItemsTalkAnswer(who, said.mentions, items))
    elif isinstance(content, ItemContent) and isinstance(said, YesNoPayload):
        rating = ratings.get(content.item_id)
        if rating is not None:
            target.bin_pref.append(BinPrefAnswer(content.item_id, rating, who, said.yes))
            target.bin_pref_scores.append((prompt.key, who, 1.0 if said.yes else 0.0))
    elif isinstance(said, AspectsPayload):
        target.open_pref_texts += 1
        aspects = said.labelled if labeller else said.aspects
        target.open_pref.extend(AspectLabel(who, a.aspect, a.sentiment) for a in aspects)
    elif isinstance(said, TextPayload):
        target.rec_request.append(RecRequestText(who, said.text))
        target.rec_request_embeddings.append((said.embedding_model, said.embedding))
    elif isinstance(content, FeedbackContent) and isinstance(said, AcceptRejectPayload):
        assert content.recommendation is not None
        positive = content.recommendation.kind == "positive"
        target.accept_reject.append(AcceptRejectAnswer(who, prompt.key, positive, said.accept))
        target.accept_scores.append((prompt.key, who, 1.0 if said.accept else 0.0))
    elif isinstance(content, FeedbackContent) and isinstance(said, ChoicePayload):
        target.comparison.append(
            _comparison(content, who, prompt.key, said.choice, said.shown_first)
        )


def study_groups(study: Study, labeller: str = "") -> list[GroupAnswers]:
    """Each responder group's answers: people first, then the simulators in order; reviews'
    aspects as ``labeller`` labelled them (`fidelity.aspect_labels.study_labeller`), or as
    their responders did when it is ""."""
    ratings = {item.item_id: item.avg_rating for item in study.items.all()}
    groups: dict[str, GroupAnswers] = {PEOPLE: GroupAnswers(PEOPLE)}
    for label in study.simulators.order_by("id").values_list("label", flat=True):
        groups[label] = GroupAnswers(label)
    answers = Answer.objects.filter(prompt__study=study).select_related("prompt")
    for answer in answers.order_by("prompt__task", "prompt__position", "responder"):
        target = groups.setdefault(answer.group, GroupAnswers(answer.group))
        _add(target, answer, ratings, labeller)
    return list(groups.values())
