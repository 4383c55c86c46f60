"""The demo fidelity study: synthetic films, requests and answers, written for EvalSite.

No third-party data: the titles, ratings, requests and every answer are made up here, with a
fixed seed. Twelve people and two simulators answer every prompt. The simulators are drawn to
differ from people the way the paper found: "demo-llm DI" names the same few popular films,
says yes to nearly everything and accepts most recommendations; "demo-llm DI+PP" follows the
ratings more closely. Their endpoint settings name no credential, so the demo never calls a
model; a coordinator adds a simulator of their own to run one.
"""

from __future__ import annotations

import hashlib
import random
from typing import TextIO

from django.db import transaction

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
    RecRequestContent,
    TextPayload,
    YesNoPayload,
    payload_json,
)
from fidelity.imports import ItemRow, RequestRow, store_items, store_requests
from fidelity.models import Answer, Simulator, Study
from fidelity.prompts import PromptCounts, make_prompts

DEMO_STUDY = "Fidelity demo"
DEMO_EMBEDDINGS = "demo-bag-of-words"
PEOPLE = tuple(f"person-{number}" for number in range(1, 13))
SIMULATORS = (("demo-llm DI", "DI"), ("demo-llm DI+PP", "DI+PP"))
_WORDS = (
    "Silver", "Harbor", "Midnight", "Garden", "Paper", "Comet", "River", "Glass", "Winter",
    "Lantern", "Orchard", "Signal", "Copper", "Meadow", "Echo", "Falcon", "Velvet", "Summit",
)  # fmt: skip
ASPECTS = ("plot", "acting", "music", "pacing", "visuals", "ending", "dialogue", "humour")
GENRES = ("a thriller", "a comedy", "a slow drama", "an animated film", "a space adventure")


def demo_items(rng: random.Random) -> list[ItemRow]:
    rows = []
    for index in range(40):
        title = f"The {_WORDS[index % 18]} {_WORDS[(index * 7 + 3) % 18]}"
        title = f"{title} {index // 18 + 1}" if index >= 18 else title
        rating = round(rng.uniform(1.5, 4.8), 2)
        count = rng.choice((120, 300, 450, 6000, 9000, 20000, 2000))
        rows.append(ItemRow(f"m{index + 1}", title, rating, count))
    return rows


def demo_requests(rng: random.Random, items: list[ItemRow]) -> list[RequestRow]:
    rows = []
    for index in range(16):
        genre = GENRES[index % len(GENRES)]
        liked = rng.sample(items, 2)
        answer = rng.sample(items, 2)
        rows.append(
            RequestRow(
                f"r{index + 1}",
                f"I loved {liked[0].title} and {liked[1].title}; can you suggest {genre}?",
                tuple(item.item_id for item in answer),
                f"Try {answer[0].title}: it is {genre} with a strong cast.",
            )
        )
    return rows


def _embedded(text: str) -> TextPayload:
    """A request with a demo embedding: its hashed bag of words (no model is called)."""
    vector = [0.0] * 32
    for word in text.lower().split():
        vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % 32] += 1.0
    return TextPayload(text, "text", tuple(vector), DEMO_EMBEDDINGS)


def _people_answer(
    content: PromptContent,
    task: str,
    ratings: dict[str, float],
    rng: random.Random,
    titles: list[tuple[str, str]],
) -> AnswerPayload:
    if isinstance(content, ItemsTalkContent):
        chosen = rng.sample(titles, 3)
        text = "I would talk about " + ", ".join(f'"{title}"' for _, title in chosen) + "."
        return MentionsPayload(text, tuple(item for item, _ in chosen))
    if isinstance(content, ItemContent) and task == "bin_pref":
        return YesNoPayload(rng.random() < (ratings[content.item_id] - 1) / 4)
    if isinstance(content, ItemContent):
        aspects = tuple(
            Aspect(aspect, rng.choice(("positive", "negative", "neutral")))
            for aspect in rng.sample(ASPECTS, 3)
        )
        return AspectsPayload(f"My view of {content.title}.", aspects)
    if isinstance(content, RecRequestContent):
        titles_liked = " and ".join(item.title for item in content.liked)
        mood = rng.choice(("tonight", "for a rainy weekend", "with my kids", "after work"))
        return _embedded(f"Loved {titles_liked}; what should I watch {mood}?")
    assert isinstance(content, FeedbackContent)
    if content.recommendation is not None:
        positive = content.recommendation.kind == "positive"
        return AcceptRejectPayload(rng.random() < (0.8 if positive else 0.25))
    roll = rng.random()
    choice = (
        content.positive
        if roll < 0.7
        else ("neither" if roll < 0.8 else "ab"[content.positive == "a"])
    )
    return ChoicePayload(choice)  # type: ignore[arg-type]


def _simulator_answer(
    content: PromptContent,
    task: str,
    ratings: dict[str, float],
    rng: random.Random,
    titles: list[tuple[str, str]],
    picky: bool,
) -> AnswerPayload:
    popular = titles[:5] if not picky else titles[:12]
    if isinstance(content, ItemsTalkContent):
        chosen = rng.sample(popular, 3)
        text = "Let's talk about " + ", ".join(f'"{title}"' for _, title in chosen) + "."
        return MentionsPayload(text, tuple(item for item, _ in chosen))
    if isinstance(content, ItemContent) and task == "bin_pref":
        chance = (ratings[content.item_id] - 1) / 4 if picky else 0.92
        return YesNoPayload(rng.random() < chance)
    if isinstance(content, ItemContent):
        aspects = tuple(Aspect(aspect, "positive") for aspect in ASPECTS[: 2 + picky])
        return AspectsPayload(f"{content.title} is a great film.", aspects)
    if isinstance(content, RecRequestContent):
        return _embedded("I am looking for movie recommendations similar to films I like.")
    assert isinstance(content, FeedbackContent)
    if content.recommendation is not None:
        positive = content.recommendation.kind == "positive"
        return AcceptRejectPayload(positive or rng.random() < (0.3 if picky else 0.8))
    return ChoicePayload("a" if not picky else content.positive)  # type: ignore[arg-type]


def _answers(study: Study) -> list[Answer]:
    rng = random.Random(2024)
    ratings = {item.item_id: item.avg_rating for item in study.items.all()}
    titles = [(item.item_id, item.title) for item in study.items.order_by("-n_ratings", "id")]
    simulators = {sim.label: sim for sim in study.simulators.all()}
    made = []
    for prompt in study.prompts.order_by("task", "position"):
        content = prompt.shown()
        for person in PEOPLE:
            payload = _people_answer(content, prompt.task, ratings, rng, titles)
            made.append(
                Answer(
                    prompt=prompt,
                    group=Answer.PEOPLE_GROUP,
                    responder=person,
                    source=Answer.Source.PEOPLE,
                    payload=payload_json(payload),
                )
            )
        for label, configuration in SIMULATORS:
            payload = _simulator_answer(
                content, prompt.task, ratings, rng, titles, configuration != "DI"
            )
            made.append(
                Answer(
                    prompt=prompt,
                    group=label,
                    responder=prompt.key,
                    source=Answer.Source.SIMULATOR,
                    simulator=simulators[label],
                    payload=payload_json(payload),
                )
            )
    return made


def seed(stdout: TextIO) -> None:
    """Create the demo study with its answers, unless it exists; safe to run again."""
    if Study.objects.filter(name=DEMO_STUDY).exists():
        stdout.write(f"Fidelity: study {DEMO_STUDY!r} exists.")
        return
    rng = random.Random(42)
    with transaction.atomic():
        study = Study.objects.create(name=DEMO_STUDY, language="en", seed=42)
        items = demo_items(rng)
        store_items(study, items)
        store_requests(study, demo_requests(rng, items))
        for label, configuration in SIMULATORS:
            Simulator.objects.create(
                study=study, label=label, configuration=configuration, llm={"model": "demo"}
            )
        make_prompts(study, PromptCounts(items_talk=12, open_pref=12, rec_request=12))
        Answer.objects.bulk_create(_answers(study))
    stdout.write(
        f"Fidelity: study {DEMO_STUDY!r} with {study.prompts.count()} prompts answered by "
        "12 people and 2 simulators."
    )
