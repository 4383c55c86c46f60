from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from evalsite import jobs
from fidelity.content import (
    AcceptRejectPayload,
    AspectsPayload,
    ChoicePayload,
    ItemContent,
    MentionsPayload,
    TextPayload,
    YesNoPayload,
    payload_json,
)
from fidelity.embedding import create_embedding_job
from fidelity.models import Answer, Simulator, Study
from fidelity.prompts import PromptCounts, make_prompts
from fidelity.report import study_report
from fidelity.simulation import create_simulation_job
from fidelity.simulator_prompts import RatedItem, simulator_messages
from testing.embeddings import deterministic_embedding
from tests.fake_openai import Answer as FakeAnswer
from tests.fake_openai import FakeOpenAI, fake_openai_server, reply  # noqa: F401

COUNTS = PromptCounts(items_talk=2, open_pref=1, rec_request=1, items_per_persona=2)


def user_answer(body: dict[str, Any]) -> FakeAnswer:
    """Answers each task's prompt as a simulated user would, from the prompt's text."""
    asked = body["messages"][-1]["content"]
    if "Name a few movies" in asked:
        value: dict[str, Any] = {"text": 'I keep thinking of "Heat" and "Jaws (1975)".'}
    elif "Would you watch" in asked:
        value = {"answer": "yes" if "Heat" in asked else "no"}
    elif "short review" in asked:
        review = "Tense plot, great cast."
        value = {"review": review, "aspects": [{"aspect": "plot", "sentiment": "positive"}]}
    elif "Write the request" in asked:
        value = {"request": "Any films like these?"}
    elif "Do you accept" in asked:
        value = {"answer": "accept"}
    else:
        value = {"choice": "B"}
    return reply(json.dumps(value))


def test_a_simulator_answers_every_prompt_once_into_typed_answers(
    study: Study, fake_openai: FakeOpenAI
) -> None:
    make_prompts(study, COUNTS)
    llm = {"base_url": fake_openai.base_url, "model": fake_openai.model, "concurrency": 2}
    simulator = Simulator.objects.create(study=study, label="fake DI", configuration="DI", llm=llm)
    fake_openai.script(*[user_answer] * 18)
    job = jobs.run(create_simulation_job(simulator))
    assert job.status == "done", job.errors
    assert job.result["answered"] == 18 and job.result["failed"] == 0
    said = {answer.prompt.key: answer.said() for answer in simulator.answers.all()}
    assert said["items_talk-1"] == MentionsPayload(
        'I keep thinking of "Heat" and "Jaws (1975)".', ("m1", "m3")
    )
    heat = study.prompts.get(task="bin_pref", content__item_id="m1")
    assert said[heat.key] == YesNoPayload(True)
    assert isinstance(said["open_pref-1"], AspectsPayload)
    assert said["open_pref-1"].aspects[0].aspect == "plot"
    assert said["rec_request-1"] == TextPayload("Any films like these?")
    assert said["feedback-1"] == AcceptRejectPayload(True)
    assert said["feedback-3"] == ChoicePayload("b")
    assert {answer.group for answer in simulator.answers.all()} == {"fake DI"}
    # Run again: every prompt is answered, so nothing is asked.
    again = jobs.run(create_simulation_job(simulator))
    assert again.result["answered"] == 18 and len(fake_openai.requests) == 18


def test_an_unusable_answer_is_counted_and_named(study: Study, fake_openai: FakeOpenAI) -> None:
    make_prompts(
        study,
        PromptCounts(items_talk=0, open_pref=0, rec_request=0, bin_pref=1, feedback_requests=0),
    )
    llm = {"base_url": fake_openai.base_url, "model": fake_openai.model}
    simulator = Simulator.objects.create(study=study, label="s", configuration="DI", llm=llm)
    fake_openai.script(reply('{"answer": "maybe"}'), reply("not json"))
    job = jobs.run(create_simulation_job(simulator))
    assert job.result["failed"] == 1 and job.errors[0].startswith("bin_pref-1:")
    assert not simulator.answers.exists()


def test_each_configuration_tells_the_user_what_the_paper_did() -> None:
    content = ItemContent("m1", "Heat")
    history = [RatedItem("Alien", 4.0), RatedItem("Up", 3.0)]

    def system(configuration: str, language: str = "en") -> str:
        messages = simulator_messages(
            "bin_pref",
            content,
            configuration=configuration,
            language=language,
            key="bin_pref-1",
            seed=1,
            history=history,
        )
        assert "Heat" in str(messages[1]["content"])
        return str(messages[0]["content"])

    assert "picky" not in system("DI") and "watched" not in system("DI")
    assert "picky" in system("DI+PP")
    assert "Alien (4.0)" in system("IH") and "Up (3.0)" in system("IH")
    assert "挑剔" in system("DI+PP", "zh")
    assert system("DI+PP") == system("DI+PP")


def test_requests_are_embedded_once_and_give_embedding_diversity(
    study: Study, fake_openai: FakeOpenAI
) -> None:
    make_prompts(study, COUNTS)
    prompt = study.prompts.get(task="rec_request")
    for who, text in (("p1", "heists please"), ("p2", "space horror?"), ("p3", "sharks")):
        Answer.objects.create(
            prompt=prompt,
            group="people",
            responder=who,
            source="people",
            payload=payload_json(TextPayload(text)),
        )
    people = next(t for t in study_report(study, resamples=0) if t.task == "rec_request").rows[0]
    assert people.cell("embedding_diversity").value is None
    llm = {"base_url": fake_openai.base_url, "model": fake_openai.model}
    job = jobs.run(create_embedding_job(study, llm))
    assert job.status == "done" and job.result["embedded"] == 3, job.message
    said = Answer.objects.get(responder="p1").said()
    assert (
        isinstance(said, TextPayload)
        and said.embedding
        and said.embedding_model == fake_openai.model
    )
    vectors = np.array(
        [deterministic_embedding(t) for t in ("heists please", "space horror?", "sharks")]
    )
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    centroid = vectors.mean(axis=0)
    expected = 1 - float(np.mean(units @ centroid / np.linalg.norm(centroid)))
    people = next(t for t in study_report(study, resamples=0) if t.task == "rec_request").rows[0]
    assert people.cell("embedding_diversity").value == pytest.approx(expected)
    jobs.run(create_embedding_job(study, llm))
    assert len(fake_openai.requests) == 1
