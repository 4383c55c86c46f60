"""The LLM evaluator against the strict fake endpoint: prompts, answers, retries, cache, resume."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django.fixtures import Settings

from annotation.llm_evaluator.job import (
    SCORE_JOB,
    ScoringRun,
    create_scoring_job,
    evaluator_name,
)
from annotation.llm_evaluator.prompt import applicable_dimensions, evaluation_messages
from annotation.llm_evaluator.ranges import IdRanges
from annotation.llm_evaluator.verdict import Verdict, verdict_reader
from annotation.models import Campaign, Dimension, LLMScore, Transcript
from annotation.report.scores import long_scores
from evalsite import jobs
from evalsite.models import Job, LLMCall
from tests.annotation.conftest import dialogue, pairwise, person
from tests.conftest import logged_in
from tests.fake_openai import (
    Answer,
    FakeOpenAI,
    fake_openai_server,  # noqa: F401
    reply,
    status,
)

pytestmark = pytest.mark.django_db

EVALUATOR = "fake-model@concept-v1"
# What the scripted evaluator gives; every other dimension gets 1, which every scale holds.
SCORES = {"relevance": 4, "quality": 3, "manner": 5, "overall": 2}
# A dialogue (accepted, so the acceptance question applies too) is asked nine questions.
DIALOGUE_QUESTIONS = 9


def verdicts(body: dict[str, Any]) -> Answer:
    """A valid answer to whatever the request asks, read from its answer template."""
    prompt = body["messages"][1]["content"]
    keys = re.findall(r'"([a-z_]+)": \{"rationale"', prompt)
    return reply(
        json.dumps({key: {"rationale": f"Why {key}.", "score": SCORES.get(key, 1)} for key in keys})
    )


def film_of(body: dict[str, Any]) -> str:
    """Which transcript a request is about: each test dialogue names its own film."""
    found = re.search(r"Film (\d+)", body["messages"][1]["content"])
    assert found is not None
    return found.group(1)


def films(count: int) -> list[dict[str, Any]]:
    return [
        dialogue(
            f"t{n}",
            turns=[
                {"role": "user", "text": "Any comedies?", "feelings": "Hopeful."},
                {"role": "system", "text": f"Try Film {n} (1980)."},
                {"role": "user", "text": "Sure. [END]"},
            ],
        )
        for n in range(1, count + 1)
    ]


def settings_for(server: FakeOpenAI, **extra: Any) -> dict[str, Any]:
    return {"base_url": server.base_url, "model": server.model, "concurrency": 1, **extra}


def score(campaign: Campaign, server: FakeOpenAI, **extra: Any) -> Job:
    return jobs.run(create_scoring_job(campaign, settings_for(server, **extra)))


def asked(transcript: Transcript) -> list[Dimension]:
    dimensions = transcript.campaign.rubric.dimensions.prefetch_related("levels")
    return applicable_dimensions(transcript, dimensions)


# The prompt ---------------------------------------------------------------------------------


def test_the_prompt_shows_each_question_with_every_level_then_the_dialogue(
    campaign_factory: Callable[..., Campaign],
) -> None:
    campaign = campaign_factory(rows=[dialogue("t1")])
    transcript = campaign.transcripts.get()
    dimensions = asked(transcript)

    system, user = evaluation_messages(transcript, dimensions)

    assert system["role"] == "system" and "rationale" in system["content"]
    prompt = user["content"]
    relevance = campaign.rubric.dimensions.get(key="relevance")
    assert f"### relevance: {relevance.name_en}" in prompt
    assert f"Question: {relevance.question_en}" in prompt
    for level in relevance.levels.all():
        assert f"- {level.value} ({level.label_en}): {level.description_en}" in prompt
    assert "### acceptance_follows_preferences" in prompt
    assert "better_response" not in prompt
    assert "The user's stated preferences: comedy" in prompt
    assert "[1] User: Any comedies?\n[2] System: Try Airplane! (1980)." in prompt
    # Blind, like an annotator: no system name, no simulator feelings.
    assert "kbrd" not in prompt and "Hopeful." not in prompt
    assert prompt.index("## Rubric") < prompt.index("## Conversation") < prompt.index("JSON")
    assert (
        '{"relevance": {"rationale": "<your reasoning>", "score": <a whole number from 1 to 5>}, '
        in prompt
    )
    assert prompt.rstrip().endswith('"score": <a whole number from 0 to 1>}}')


def test_the_prompt_is_in_the_transcripts_language(
    campaign_factory: Callable[..., Campaign],
) -> None:
    campaign = campaign_factory(rows=[dialogue("t1", lang="zh-hans")])
    transcript = campaign.transcripts.get()

    system, user = evaluation_messages(transcript, asked(transcript))

    relevance = campaign.rubric.dimensions.get(key="relevance")
    low = relevance.levels.get(value=1)
    assert f"- 1 ({low.label_zh}): {low.description_zh}" in user["content"]
    assert low.description_en not in user["content"]
    assert "[1] 用户：Any comedies?" in user["content"]
    assert "评测员" in system["content"] and "JSON" in system["content"]


def test_a_pairwise_item_is_asked_only_the_pairwise_question_without_the_systems(
    campaign_factory: Callable[..., Campaign],
) -> None:
    campaign = campaign_factory(rows=[pairwise("p1")])
    transcript = campaign.transcripts.get()
    dimensions = asked(transcript)

    prompt = evaluation_messages(transcript, dimensions)[1]["content"]

    assert [dimension.key for dimension in dimensions] == ["better_response"]
    assert "Response A: RESPONSE-A-TEXT: Amélie (2001)." in prompt
    assert "Response B: RESPONSE-B-TEXT: The Avengers (2012)." in prompt
    assert "SYSTEM-A-NAME" not in prompt and "SYSTEM-B-NAME" not in prompt
    assert "### relevance" not in prompt


def test_a_dialogue_without_acceptance_is_not_asked_the_acceptance_question(
    campaign_factory: Callable[..., Campaign],
) -> None:
    campaign = campaign_factory(rows=[dialogue("t1", outcome={"accepted": False})])
    keys = [dimension.key for dimension in asked(campaign.transcripts.get())]
    assert "acceptance_follows_preferences" not in keys and len(keys) == 8


# Reading the answer -------------------------------------------------------------------------


def test_an_answer_needs_a_rationale_and_a_score_in_scale_for_every_question(
    campaign_factory: Callable[..., Campaign],
) -> None:
    campaign = campaign_factory()
    manner = campaign.rubric.dimensions.get(key="manner")
    binary = campaign.rubric.dimensions.get(key="acceptance_follows_preferences")
    read = verdict_reader([manner, binary])
    good = {
        "manner": {"rationale": " Clear. ", "score": 4.0},
        "acceptance_follows_preferences": {"rationale": "Fits.", "score": 0},
    }

    verdicts_read = read(good)
    assert verdicts_read["manner"] == Verdict("Clear.", 4)
    assert verdicts_read["acceptance_follows_preferences"].score == 0
    problems = [
        ({"manner": good["manner"]}, "no verdict for acceptance_follows_preferences"),
        ({**good, "manner": {"rationale": "Clear.", "score": 6}}, "from 1 to 5, not 6"),
        ({**good, "manner": {"rationale": "Clear.", "score": 3.5}}, "not 3.5"),
        ({**good, "manner": {"rationale": "Clear.", "score": True}}, "not True"),
        ({**good, "manner": {"rationale": " ", "score": 3}}, "manner needs a rationale"),
        ({**good, "manner": 3}, "must be an object"),
        ([1, 2], "keyed by dimension"),
    ]
    for value, message in problems:
        with pytest.raises(ValueError, match=re.escape(message)):
            read(value)


def test_the_evaluator_name_holds_the_model_and_the_prompt_version() -> None:
    assert evaluator_name("gpt-4o-mini") == "gpt-4o-mini@concept-v1"
    assert evaluator_name("gpt-4o-mini", "gpt-4o-mini") == "gpt-4o-mini@concept-v1"
    assert evaluator_name("qwen2.5", "lab") == "lab:qwen2.5@concept-v1"
    with pytest.raises(ValueError, match="longer than 100"):
        evaluator_name("m" * 90, "label")


def test_id_ranges_merge_as_ids_arrive_in_any_order() -> None:
    done = IdRanges()
    for value in (5, 3, 4, 9, 1, 8):
        done.add(value)
    assert done.as_json() == [[1, 1], [3, 5], [8, 9]]
    done.add(2)
    assert done.as_json() == [[1, 5], [8, 9]]
    again = IdRanges(done.as_json())
    assert 4 in again and 6 not in again and 9 in again and len(again) == 7
    assert list(again) == [1, 2, 3, 4, 5, 8, 9]


# Scoring jobs -------------------------------------------------------------------------------


def test_scores_land_as_llm_scores_where_the_agreement_report_reads_them(
    campaign_factory: Callable[..., Campaign], fake_openai: FakeOpenAI
) -> None:
    campaign = campaign_factory(rows=films(2))
    fake_openai.script(verdicts, verdicts)

    job = score(campaign, fake_openai)

    assert job.status == Job.Status.DONE, job.errors
    assert (job.done, job.total, job.percent) == (2, 2, 100)
    assert LLMScore.objects.filter(evaluator=EVALUATOR).count() == 2 * DIALOGUE_QUESTIONS
    relevance = LLMScore.objects.get(transcript__external_id="t1", dimension__key="relevance")
    assert (relevance.score, relevance.rationale) == (4.0, "Why relevance.")
    assert job.result["scored"] == 2 and job.result["failed"] == 0
    assert job.result["requests"] == 2 and job.result["cache_hits"] == 0
    assert job.result["cost"] is None
    first = fake_openai.requests[0]
    assert (first["temperature"], first["seed"]) == (0, 42)
    assert first["response_format"] == {"type": "json_object"}
    frame = long_scores(campaign)
    machine = frame[frame["is_llm"]]
    assert set(machine["rater"]) == {EVALUATOR} and len(machine) == 2 * DIALOGUE_QUESTIONS
    manner = machine[(machine["item"] == "t2") & (machine["dimension"] == "manner")]
    assert manner["score"].tolist() == [5.0]


def test_a_malformed_answer_is_asked_again_once_then_recorded_as_an_error(
    campaign_factory: Callable[..., Campaign], fake_openai: FakeOpenAI
) -> None:
    campaign = campaign_factory(rows=films(2))
    asked_about_t1: list[int] = []

    def answer(body: dict[str, Any]) -> Answer:
        # The job's parts ask about the transcripts in any order: the answer follows the film.
        if film_of(body) != "1":
            return verdicts(body)
        asked_about_t1.append(1)
        if len(asked_about_t1) == 1:
            return reply("I think it is a 4.")
        return reply('{"relevance": {"score": 4}}')

    fake_openai.script(answer, answer, answer)

    job = score(campaign, fake_openai)

    assert job.status == Job.Status.DONE
    assert len(fake_openai.requests) == 3
    assert not LLMScore.objects.filter(transcript__external_id="t1").exists()
    assert LLMScore.objects.filter(transcript__external_id="t2").count() == DIALOGUE_QUESTIONS
    [error] = job.errors
    assert error.startswith("t1: the JSON does not fit: ")
    assert error.endswith('the answer was: {"relevance": {"score": 4}}')
    assert (job.result["scored"], job.result["failed"]) == (1, 1)
    assert LLMCall.objects.filter(status=LLMCall.Status.INVALID).count() == 2


def test_a_malformed_answer_then_a_good_one_is_scored(
    campaign_factory: Callable[..., Campaign], fake_openai: FakeOpenAI
) -> None:
    campaign = campaign_factory(rows=films(1))
    fake_openai.script(reply('{"relevance": '), verdicts)

    job = score(campaign, fake_openai)

    assert job.errors == [] and job.result["scored"] == 1
    assert LLMScore.objects.count() == DIALOGUE_QUESTIONS
    again = fake_openai.requests[1]["messages"]
    assert again[-2] == {"role": "assistant", "content": '{"relevance": '}
    assert again[-1]["content"].startswith("That answer could not be used")


def test_it_waits_as_a_429_asks_then_scores(
    campaign_factory: Callable[..., Campaign], fake_openai: FakeOpenAI
) -> None:
    campaign = campaign_factory(rows=films(1))
    fake_openai.script(status(429, retry_after="0.3"), verdicts)

    job = score(campaign, fake_openai)

    assert job.status == Job.Status.DONE and job.result["scored"] == 1
    call = LLMCall.objects.get()
    assert call.attempts == 2 and call.latency_ms >= 300
    assert job.result["requests"] == 2


def test_a_new_job_over_the_same_transcripts_is_answered_from_the_cache_for_nothing(
    campaign_factory: Callable[..., Campaign], fake_openai: FakeOpenAI
) -> None:
    campaign = campaign_factory(rows=films(2))
    fake_openai.script(verdicts, verdicts)
    prices = {"price_per_1k_prompt": "0.5", "price_per_1k_completion": "1.5"}

    first = score(campaign, fake_openai, **prices)
    scores_before = sorted(LLMScore.objects.values_list("transcript_id", "dimension_id", "score"))
    second = score(campaign, fake_openai, **prices)

    # Each answer: 10 prompt and 5 completion tokens, (10 × 0.5 + 5 × 1.5) / 1000 = 0.0125.
    assert first.result["cost"] == "0.025000"
    assert first.result["prompt_tokens"] == 20 and first.result["completion_tokens"] == 10
    assert len(fake_openai.requests) == 2
    assert second.status == Job.Status.DONE
    assert second.result["requests"] == 0 and second.result["cache_hits"] == 2
    assert Decimal(second.result["cost"]) == 0
    assert sorted(LLMScore.objects.values_list("transcript_id", "dimension_id", "score")) == (
        scores_before
    )


class Killed(BaseException):
    """Stands for the process dying: no ``except Exception`` in the job runner catches it."""


def test_a_killed_job_resumes_without_asking_about_any_transcript_twice(
    campaign_factory: Callable[..., Campaign],
    fake_openai: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    # One part, run here: the kill leaves it running, as a dead worker would.
    settings.JOB_PARTS = 1
    campaign = campaign_factory(rows=films(4))
    fake_openai.script(verdicts, verdicts, verdicts, verdicts)
    record = ScoringRun.record
    calls = []

    def dies_at_the_third(run: ScoringRun, *args: Any) -> None:
        calls.append(1)
        if len(calls) == 3:
            raise Killed
        record(run, *args)

    monkeypatch.setattr(ScoringRun, "record", dies_at_the_third)
    job = create_scoring_job(campaign, settings_for(fake_openai))
    with pytest.raises(Killed):
        jobs.run(job)
    monkeypatch.setattr(ScoringRun, "record", record)
    job.refresh_from_db()
    assert job.status == Job.Status.RUNNING
    # The two transcripts scored before the kill keep their scores.
    assert sum(t.llm_scores.exists() for t in campaign.transcripts.all()) == 2
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert jobs.reap_interrupted() == 1
    job.refresh_from_db()

    resumed = jobs.resume(job, background=False)

    assert isinstance(resumed, Job) and resumed.status == Job.Status.DONE
    # The third answer came before the kill: on resume it is read from the cache. The parts
    # of the job take the transcripts in their own order; each is asked about once.
    assert sorted(film_of(body) for body in fake_openai.requests) == ["1", "2", "3", "4"]
    for transcript in campaign.transcripts.all():
        assert transcript.llm_scores.count() == DIALOGUE_QUESTIONS
    assert resumed.result["scored"] == 4
    assert resumed.result["requests"] == 4 and resumed.result["cache_hits"] == 1


def test_an_endpoint_that_fails_stops_the_job_which_resumes_where_it_stopped(
    campaign_factory: Callable[..., Campaign], fake_openai: FakeOpenAI
) -> None:
    campaign = campaign_factory(rows=films(3))
    fake_openai.script(verdicts, status(401, message="bad key"))

    failed = score(campaign, fake_openai)

    assert failed.status == Job.Status.FAILED
    assert "the LLM endpoint failed (HTTP 401" in failed.errors[-1]
    assert failed.done == 1
    fake_openai.script(verdicts, verdicts)
    resumed = jobs.resume(failed, background=False)
    assert isinstance(resumed, Job) and resumed.status == Job.Status.DONE
    asked = [film_of(body) for body in fake_openai.requests]
    # The film answered before the failure is not asked again; the one refused is asked again.
    answered, refused = asked[0], asked[1]
    assert asked.count(answered) == 1 and asked.count(refused) == 2
    assert sorted(asked) == sorted(["1", "2", "3", refused])
    assert LLMScore.objects.count() == 3 * DIALOGUE_QUESTIONS


# The command and the page -------------------------------------------------------------------


def test_the_command_scores_a_campaign_under_a_labelled_evaluator(
    campaign_factory: Callable[..., Campaign], fake_openai: FakeOpenAI
) -> None:
    campaign = campaign_factory(rows=[*films(1), pairwise("p1")])
    fake_openai.script(verdicts, verdicts)
    out = io.StringIO()

    call_command(
        "llm_score",
        campaign.name,
        "--base-url",
        fake_openai.base_url,
        "--model",
        fake_openai.model,
        "--evaluator",
        "lab",
        stdout=out,
    )

    name = "lab:fake-model@concept-v1"
    assert LLMScore.objects.filter(evaluator=name).count() == DIALOGUE_QUESTIONS + 1
    better = LLMScore.objects.get(dimension__key="better_response")
    assert better.transcript.external_id == "p1"
    last = out.getvalue().strip().splitlines()[-1]
    assert last.startswith("job ") and json.loads(last.split(" done: ", 1)[1])["scored"] == 2


def test_the_command_names_what_is_missing(campaign_factory: Callable[..., Campaign]) -> None:
    campaign_factory(name="Known")
    with pytest.raises(
        CommandError,
        match=r"no annotation campaign named or numbered 'Nope'; known \(id: name\): \d+: Known",
    ):
        call_command("llm_score", "Nope", "--base-url", "http://x/v1", "--model", "m")
    with pytest.raises(CommandError, match="--base-url and --model"):
        call_command("llm_score", "Known")
    with pytest.raises(CommandError, match="base_url must be an http"):
        call_command("llm_score", "Known", "--base-url", "ftp://x", "--model", "m")


@pytest.fixture
def boss(db: None) -> User:
    return person("boss", "coordinators")


def test_a_coordinator_starts_a_scoring_job_from_the_page_and_sees_its_cost(
    campaign_factory: Callable[..., Campaign],
    fake_openai: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    boss: User,
    settings: Settings,
) -> None:
    monkeypatch.setattr(jobs, "start", jobs.run)
    settings.LLM_KEYS = f"fake:@{fake_openai.base_url}"
    campaign = campaign_factory(rows=films(2))
    fake_openai.script(verdicts, verdicts)
    client = logged_in(boss)
    url = reverse("annotation_llm:campaign", args=[campaign.pk])
    assert "llm-score-form" in client.get(url).content.decode()

    response = client.post(
        url,
        {
            "credential": "fake",
            "model": fake_openai.model,
            "concurrency": 2,
            "price_per_1k_prompt": "1",
            "price_per_1k_completion": "2",
            "label": "",
        },
    )

    job = Job.objects.get(kind=SCORE_JOB)
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.pk}/"
    assert job.status == Job.Status.DONE and job.created_by == boss
    assert job.params["llm"]["cache"] is True and "api_key_env" not in job.params["llm"]
    assert LLMScore.objects.filter(evaluator=EVALUATOR).count() == 2 * DIALOGUE_QUESTIONS
    # (10 × 1 + 5 × 2) / 1000 per answer, two answers.
    assert job.result["cost"] == "0.040000"
    page = client.get(url).content.decode()
    assert "0.040000" in page and EVALUATOR in page
    index = client.get(reverse("annotation_llm:index")).content.decode()
    assert f"{EVALUATOR} (2)" in index


def test_the_page_refuses_settings_that_cannot_work(
    campaign_factory: Callable[..., Campaign], boss: User, settings: Settings
) -> None:
    settings.LLM_KEYS = "local:@http://127.0.0.1:9/v1"
    campaign = campaign_factory()
    response = logged_in(boss).post(
        reverse("annotation_llm:campaign", args=[campaign.pk]),
        {
            "credential": "local",
            "model": "m",
            "concurrency": 1,
            "price_per_1k_prompt": "1",
        },
    )
    assert response.status_code == 400
    assert "give both price_per_1k_prompt and price_per_1k_completion" in response.content.decode()
    assert not Job.objects.exists()


def test_only_coordinators_reach_the_evaluator_pages(
    campaign_factory: Callable[..., Campaign], annotator_client: Client
) -> None:
    campaign = campaign_factory()
    for url in (
        reverse("annotation_llm:index"),
        reverse("annotation_llm:campaign", args=[campaign.pk]),
    ):
        assert annotator_client.get(url).status_code == 403
        assert Client().get(url).status_code == 302
