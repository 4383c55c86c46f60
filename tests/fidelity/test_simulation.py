from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from evalsite import jobs
from evalsite.job_descriptions import describe
from evalsite.models import Job
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


HISTORY = re.compile(r"([^:,]+?) \(\d\.\d\)")


def history_titles(body: dict[str, Any]) -> list[str]:
    system = str(body["messages"][0]["content"])
    shown = system.split("rating out of 5:", 1)[1] if "rating out of 5:" in system else ""
    return [title.strip() for title in HISTORY.findall(shown)]


def repeats_its_history(body: dict[str, Any]) -> FakeAnswer:
    """An IH user who names back the first film of its history, or would watch anything."""
    if "Name a few movies" in body["messages"][-1]["content"]:
        return reply(json.dumps({"text": f'"{history_titles(body)[0]}"'}))
    return reply(json.dumps({"answer": "yes"}))


def test_an_ih_simulator_naming_its_history_back_is_not_counted_and_never_sees_the_asked_item(
    study: Study, fake_openai: FakeOpenAI
) -> None:
    counts = PromptCounts(items_talk=2, bin_pref=5, open_pref=0, rec_request=0, feedback_requests=0)
    make_prompts(study, replace(counts, items_per_persona=2))
    llm = {"base_url": fake_openai.base_url, "model": fake_openai.model}
    simulator = Simulator.objects.create(study=study, label="ih", configuration="IH", llm=llm)
    fake_openai.script(*[repeats_its_history] * 7)
    job = jobs.run(create_simulation_job(simulator))
    assert job.status == "done" and job.result["answered"] == 7, job.errors
    titles = {item.title: item.item_id for item in study.items.all()}
    for body in fake_openai.requests:
        asked = body["messages"][-1]["content"]
        history = history_titles(body)
        if "Would you watch" in asked:
            # All 5 items but the one asked about.
            assert len(history) == 4 and not any(f'"{title}"' in asked for title in history)
        else:
            assert len(history) == 3  # all 5 items but the persona's 2
    talk = simulator.answers.filter(prompt__task="items_talk")
    for answer in talk:
        said = answer.said()
        assert isinstance(said, MentionsPayload) and len(said.mentions) == 1
        assert said.mentions[0] in said.history and len(said.history) == 3
        persona = {item.item_id for item in answer.prompt.shown().items}  # type: ignore[union-attr]
        assert said.mentions[0] not in persona and set(said.history) <= set(titles.values())
    report = next(t for t in study_report(study, resamples=0) if t.task == "items_talk")
    row = next(row for row in report.rows if row.group == "ih")
    # Both answers name only a film of their own history: nothing is left to count.
    assert row.cell("n_mentions").value == 0


def test_the_job_pages_say_what_the_simulator_and_the_embedding_did(
    study: Study, fake_openai: FakeOpenAI, coordinator_client: Client
) -> None:
    make_prompts(
        study,
        PromptCounts(items_talk=0, bin_pref=3, open_pref=0, rec_request=1, feedback_requests=0),
    )
    llm = {"base_url": fake_openai.base_url, "model": fake_openai.model, "concurrency": 1}
    simulator = Simulator.objects.create(
        study=study, label="gpt-x picky", configuration="DI+PP", llm=llm
    )
    # In order: two binary preferences answered, the third not even when asked again.
    fake_openai.script(reply('{"answer": "yes"}'), reply('{"answer": "no"}'))
    fake_openai.script(reply("not json"), reply("not json"))
    fake_openai.script(reply('{"request": "films like these?"}'))
    job = jobs.run(create_simulation_job(simulator))
    embedded = jobs.run(create_embedding_job(study, llm))
    study_url = reverse("fidelity:study", args=[study.pk])
    with translation.override("en"):
        page = coordinator_client.get(reverse("job_detail", args=[job.pk])).content.decode()
        assert re.search(
            r"Simulator gpt-x picky \(DI\+PP\) answered 3 prompts of study Test study in "
            r"[\d.]+ s\.",
            page,
        ), page
        assert "1 prompt got no usable answer" in page and f'href="{study_url}"' in page
        assert "Background job" not in page
        page = coordinator_client.get(reverse("job_detail", args=[embedded.pk])).content.decode()
        assert re.search(
            rf"1 recommendation request of study Test study embedded by {fake_openai.model} in",
            page,
        )
        assert f'href="{study_url}"' in page


def test_a_stopped_simulation_resumes_only_while_its_simulator_is_there(study: Study) -> None:
    simulator = Simulator.objects.create(study=study, label="s", configuration="DI", llm={})
    job = Job.objects.create(
        kind="fidelity_simulate", params={"simulator": simulator.pk}, status="interrupted"
    )
    assert describe(job).resumable
    simulator.delete()
    assert not describe(job).resumable
