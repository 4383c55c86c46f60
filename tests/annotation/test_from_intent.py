"""Intent utterances sent to annotation, and how people's labels agree with each other and gold."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO
from typing import Any

import krippendorff
import numpy as np
import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

from annotation.from_intent.agreement import intent_agreement
from annotation.from_intent.llm_labels import create_label_job
from annotation.from_intent.utterances import external_id, send_utterances
from annotation.from_live.intent_turns import send_user_turns
from annotation.models import Assignment, Campaign, Dimension, LLMScore, Response, Transcript
from evalsite import jobs, roles
from evalsite.models import Job
from intent import datasets
from intent.models import Track
from liveeval.models import Campaign as LiveCampaign
from liveeval.models import ChatSession, DialogueSystem, Message
from tests.conftest import logged_in, make_user
from tests.fake_openai import Answer, FakeOpenAI, fake_openai_server, reply  # noqa: F401

LABELS = ["weather", "chat", "music"]
# Gold: weather chat music weather chat music
DEV = {str(i): {"query": f"句子{i}", "label": LABELS[i % 3]} for i in range(6)}


@pytest.fixture
def track(db: None) -> Track:
    track = Track.objects.create(name="Intent agreement", labels=LABELS)
    datasets.import_split(track, "dev", json.dumps(DEV, ensure_ascii=False), "dev.json")
    return track


def label(campaign: Campaign, username: str, values: list[int]) -> None:
    annotator = make_user(username, roles.ANNOTATORS)
    dimension = Dimension.objects.get(rubric=campaign.rubric, key="intent")
    for number, transcript in enumerate(campaign.transcripts.order_by("position")):
        suffix = transcript.external_id.rsplit("-", 1)[1]
        position = int(suffix) if transcript.external_id.startswith("intent-") else number
        assignment = Assignment.objects.create(
            campaign=campaign,
            transcript=transcript,
            annotator=annotator,
            status=Assignment.Status.SUBMITTED,
        )
        Response.objects.create(
            assignment=assignment,
            transcript=transcript,
            dimension=dimension,
            value=values[position],
        )


def test_utterances_become_items_with_the_labels_as_a_nominal_question(track: Track) -> None:
    send_utterances(track, "dev", "Intent labelling")
    campaign = Campaign.objects.get(name="Intent labelling")
    question = campaign.rubric.dimensions.get()
    assert question.level_of_measurement == "nominal"
    levels = list(question.levels.order_by("value"))
    assert [level.label_en for level in levels] == LABELS
    assert levels[0].description_zh == "天气预报"
    transcript = Transcript.objects.get(external_id=external_id(track, "4"))
    assert transcript.turns == [{"role": "user", "text": "句子4"}]
    # The gold label never travels with the item.
    assert "chat" not in json.dumps(transcript.metadata) + json.dumps(transcript.turns)


def test_alpha_among_annotators_and_each_annotators_f_against_gold(track: Track) -> None:
    send_utterances(track, "dev", "Intent labelling")
    campaign = Campaign.objects.get(name="Intent labelling")
    label(campaign, "ann", [0, 1, 2, 0, 1, 2])  # all right
    label(campaign, "bob", [0, 1, 2, 0, 1, 1])  # the last music as chat
    result = intent_agreement(campaign, track)
    assert result.items == 6
    matrix = np.array([[0, 1, 2, 0, 1, 2], [0, 1, 2, 0, 1, 1]], dtype=float)
    assert result.alpha == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    )
    scores = {row.annotator: row for row in result.annotators}
    assert scores["ann"].official_f == pytest.approx(1.0)
    # bob: P = (1 + 2/3 + 1)/3 = 8/9, R = (1 + 1 + 1/2)/3 = 5/6;  F = 2(8/9)(5/6)/(8/9+5/6) = 80/93
    assert scores["bob"].official_f == pytest.approx(80 / 93)
    assert scores["bob"].accuracy == pytest.approx(5 / 6)


def test_one_annotator_gives_no_alpha_and_says_why(track: Track) -> None:
    send_utterances(track, "dev", "Intent labelling")
    campaign = Campaign.objects.get(name="Intent labelling")
    label(campaign, "ann", [0, 1, 2, 0, 1, 2])
    result = intent_agreement(campaign, track)
    assert result.alpha is None
    assert result.alpha_note


# The LLM as one more labeller ---------------------------------------------------------------


def answer_right(body: dict[str, Any]) -> Answer:
    """Labels by the utterance's number, as the gold labels are: 句子i is LABELS[i % 3]."""
    number = int(body["messages"][1]["content"].removeprefix("句子"))
    return reply(json.dumps({"label": LABELS[number % 3]}))


def test_the_llm_labels_in_chinese_is_cached_and_scored_against_gold(
    track: Track, fake_openai: FakeOpenAI
) -> None:
    send_utterances(track, "dev", "Intent labelling")
    campaign = Campaign.objects.get(name="Intent labelling")
    label(campaign, "ann", [0, 1, 2, 0, 1, 2])
    label(campaign, "bob", [0, 1, 2, 0, 1, 1])
    # One malformed answer first: the client asks again once, then it is right.
    fake_openai.script(reply("weather"), *[answer_right] * 6)
    settings = {"base_url": fake_openai.base_url, "model": fake_openai.model, "concurrency": 1}
    job = jobs.run(create_label_job(campaign, settings))
    assert job.status == Job.Status.DONE, job.errors
    assert job.result["labelled"] == 6
    prompt = fake_openai.requests[0]["messages"][0]["content"]
    assert "只能从以下标签中选一个：weather, chat, music" in prompt

    result = intent_agreement(campaign, track)
    (llm,) = result.llm
    assert llm.evaluator == f"{fake_openai.model}@intent-label-v1"
    assert (llm.items, llm.official_f, llm.accuracy) == (6, pytest.approx(1.0), 1.0)
    # Six items are too few for the alt-test, and it says so.
    assert llm.alt_test_passed is None and llm.alt_test_note

    # Asked again, every valid answer comes from the cache: only the request whose answer was
    # malformed is sent again.
    LLMScore.objects.all().delete()
    fake_openai.script(answer_right)
    again = jobs.run(create_label_job(campaign, settings))
    assert again.result["labelled"] == 6
    assert len(fake_openai.requests) == 8
    # A run over utterances already labelled (as a resumed job finds them) asks nothing.
    assert jobs.run(create_label_job(campaign, settings)).result["labelled"] == 6
    assert len(fake_openai.requests) == 8


def test_user_turns_of_live_dialogues_are_sent_without_gold(track: Track) -> None:
    system = DialogueSystem.objects.create(slug="s", name="S", alias="A", kind="builtin")
    live = LiveCampaign.objects.create(name="Live", today=dt.date(2026, 12, 1))
    ended = ChatSession.objects.create(
        system=system, kind="judged", campaign=live, status="ended", today=live.today
    )
    ChatSession.objects.create(
        system=system, kind="judged", campaign=live, status="open", today=live.today
    )
    for position, (role, text) in enumerate(
        [("user", "明天北京天气怎么样"), ("system", "晴"), ("user", "放首歌")]
    ):
        Message.objects.create(session=ended, position=position, role=role, text=text)
    send_user_turns(live, track, "Live intents")
    campaign = Campaign.objects.get(name="Live intents")
    texts = [t.turns[0]["text"] for t in campaign.transcripts.order_by("position")]
    assert texts == ["明天北京天气怎么样", "放首歌"]
    label(campaign, "ann", [0, 0, 0, 0, 0, 0])
    result = intent_agreement(campaign, track)
    # Labelled, but no gold to score against.
    assert result.items == 2 and result.annotators == ()


def test_the_commands_send_utterances_and_print_the_agreement(track: Track) -> None:
    out = StringIO()
    call_command(
        "send_intent_utterances", track.name, "Intent labelling", "--split", "dev", stdout=out
    )
    assert "6 utterances added" in out.getvalue()
    label(Campaign.objects.get(name="Intent labelling"), "ann", [0, 1, 2, 0, 1, 2])
    out = StringIO()
    call_command("intent_agreement", "Intent labelling", str(track.pk), stdout=out)
    result = json.loads(out.getvalue())
    assert result["items"] == 6
    assert result["annotators"] == [
        {"annotator": "ann", "items": 6, "official_f": 1.0, "accuracy": 1.0}
    ]


def test_a_coordinator_sends_utterances_and_reads_the_agreement_page(
    track: Track, coordinator: User, annotator: User
) -> None:
    client = logged_in(coordinator)
    response = client.post(
        reverse("from_intent:send", args=[track.pk]), {"split": "dev", "campaign": "Web labels"}
    )
    campaign = Campaign.objects.get(name="Web labels")
    assert response.status_code == 302
    label(campaign, "ann", [0, 1, 2, 0, 1, 2])
    label(campaign, "bob", [0, 1, 2, 0, 1, 1])
    with translation.override("en"):
        page = client.get(reverse("from_intent:agreement", args=[campaign.pk])).content.decode()
    assert 'id="alpha"' in page and "<strong>" in page
    assert "0.8602" in page  # bob's official F, 80/93
    assert (
        logged_in(annotator).get(reverse("from_intent:agreement", args=[campaign.pk])).status_code
        == 403
    )


def test_an_llm_giving_every_utterance_the_common_label_never_stands_in(db: None) -> None:
    # 40 utterances, 34 of them (85%) "chat"; three people who each mislabel 20% at random,
    # and an LLM that labels every utterance "chat". The alt-test (accuracy) passes it, as it
    # passes a constant "yes"; the one rule does not.
    generator = np.random.default_rng(4)
    gold = [0 if i % 7 == 3 else 1 for i in range(40)]
    dev = {str(i): {"query": f"句子{i}", "label": LABELS[g]} for i, g in enumerate(gold)}
    track = Track.objects.create(name="Mostly chat", labels=LABELS)
    datasets.import_split(track, "dev", json.dumps(dev, ensure_ascii=False), "dev.json")
    send_utterances(track, "dev", "Chat labelling")
    campaign = Campaign.objects.get(name="Chat labelling")
    for name in ("ann", "bob", "cy"):
        wrong = generator.random(40) < 0.2
        label(
            campaign,
            name,
            [int(generator.integers(0, 3)) if w else g for g, w in zip(gold, wrong, strict=True)],
        )
    dimension = Dimension.objects.get(rubric=campaign.rubric, key="intent")
    for transcript in campaign.transcripts.all():
        LLMScore.objects.create(
            transcript=transcript, dimension=dimension, evaluator="always-chat", score=1
        )
    (llm,) = intent_agreement(campaign, track).llm
    assert llm.alt_test_passed is True
    assert llm.verdict is not None and llm.verdict.stands_in is False
    assert not llm.verdict.check("answers_vary").passed
    assert "it gives the same answer to every item" in llm.verdict.sentence
    out = StringIO()
    call_command("intent_agreement", "Chat labelling", str(track.pk), stdout=out)
    assert json.loads(out.getvalue())["llm"][0]["verdict"]["stands_in"] is False
    coordinator = make_user("cora", roles.COORDINATORS)
    client = logged_in(coordinator)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    page = client.get(reverse("from_intent:agreement", args=[campaign.pk])).content.decode()
    cell = page[page.index('class="stands-in"') :].split("</td>")[0]
    assert "该大模型不能代替人工" in cell
