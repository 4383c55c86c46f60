from __future__ import annotations

import pytest

from fidelity.content import (
    ChoicePayload,
    FeedbackContent,
    ItemsTalkContent,
    RecRequestContent,
    payload_json,
)
from fidelity.models import Answer, Study
from fidelity.prompts import PromptCounts, PromptsError, draw_prompts, make_prompts

COUNTS = PromptCounts(items_talk=4, open_pref=3, rec_request=2, items_per_persona=2)


def test_prompts_of_every_task_are_drawn_the_same_way_twice(study: Study) -> None:
    first = draw_prompts(study, COUNTS)
    assert first == draw_prompts(study, COUNTS)
    assert {task: len(made) for task, made in first.items()} == {
        "items_talk": 4,
        "bin_pref": 5,
        "open_pref": 3,
        "rec_request": 2,
        "feedback": 9,
    }
    persona = first["items_talk"][0]
    assert isinstance(persona, ItemsTalkContent) and len(persona.items) == 2
    assert all(item.title in persona.persona for item in persona.items)
    liked = first["rec_request"][0]
    assert isinstance(liked, RecRequestContent) and len(liked.liked) == 3


def test_feedback_has_a_positive_a_negative_and_a_recorded_comparison(study: Study) -> None:
    feedback = draw_prompts(study, COUNTS)["feedback"]
    positive, negative, compared = feedback[:3]
    assert isinstance(positive, FeedbackContent) and isinstance(negative, FeedbackContent)
    assert isinstance(compared, FeedbackContent) and compared.is_comparison
    assert positive.recommendation is not None and positive.recommendation.kind == "positive"
    assert positive.recommendation.from_request == positive.request_id == "r1"
    assert [item.title for item in positive.recommendation.items] == ["Heat"]
    assert negative.recommendation is not None and negative.recommendation.kind == "negative"
    assert negative.recommendation.from_request != "r1"
    assert compared.a is not None and compared.b is not None
    shown_positive = compared.a if compared.positive == "a" else compared.b
    assert shown_positive.kind == "positive"
    orders = {
        content.positive
        for content in feedback
        if isinstance(content, FeedbackContent) and content.is_comparison
    }
    assert orders <= {"a", "b"}


def test_prompts_are_stored_and_not_redrawn_once_answered(study: Study) -> None:
    assert make_prompts(study, COUNTS) == 23
    prompt = study.prompts.get(key="feedback-3")
    assert prompt.shown() == draw_prompts(study, COUNTS)["feedback"][2]
    Answer.objects.create(
        prompt=prompt,
        group="people",
        responder="p1",
        source="people",
        payload=payload_json(ChoicePayload("a")),
    )
    with pytest.raises(PromptsError):
        make_prompts(study, COUNTS)
    assert study.prompts.count() == 23
