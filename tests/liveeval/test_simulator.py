"""Simulated judges against the strict fake endpoint, talking to real adapters."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django.fixtures import Settings

from annotation.from_live.transcripts import send_to_annotation
from annotation.models import Campaign as AnnotationCampaign
from evalsite import jobs
from evalsite.models import Job
from liveeval.booking.goals import goal_met
from liveeval.booking.models import City
from liveeval.booking.store import build_world
from liveeval.booking.timetable import world_dates
from liveeval.campaigns import progress
from liveeval.models import (
    Booking,
    Campaign,
    ChatSession,
    DialogueSystem,
    Rating,
    SystemAlias,
    TaskCard,
)
from liveeval.simulation import dialogue as dialogue_loop
from liveeval.simulation.answers import SimulatedTurn, read_rating, read_turn
from liveeval.simulation.job import SIMULATE_JOB, SimulationRun, create_simulation_job
from liveeval.simulation.personas import (
    AGE_GROUPS,
    ALL_PERSONAS,
    EMOTIONS,
    PersonaError,
    parse_personas,
)
from liveeval.tasks import load_task_cards
from tests.fake_openai import (
    FakeOpenAI,
    fake_openai_server,  # noqa: F401
    reply,
)
from tests.liveeval.conftest import (
    FLIGHT_GOAL,
    TODAY,
    judged_session,
    make_campaign,
    make_system,
    make_task,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("small_world", "fake_systems")]

SIMULATOR = "fake-model@sim-v1"


@pytest.fixture(scope="module")
def small_world(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """Three days of booking world shared by this module's tests, removed afterwards."""
    with django_db_blocker.unblock():
        build_world(world_dates(TODAY, 3), force=True)
    yield
    with django_db_blocker.unblock():
        Booking.objects.all().delete()
        ChatSession.objects.all().delete()
        City.objects.all().delete()


def turn(feelings: str, utterance: str) -> Any:
    return reply(json.dumps({"feelings": feelings, "utterance": utterance}, ensure_ascii=False))


def rating(**values: Any) -> Any:
    answers = {"completed": True, "satisfaction": 1, "fluency": 1, "guidance": 0, **values}
    return reply(
        json.dumps({name: {"reason": f"{name} 的理由", "value": v} for name, v in answers.items()})
    )


def parrot_campaign(*, max_turns: int = 20) -> Campaign:
    """A campaign with one echoing system whose names must never reach the simulator."""
    campaign = make_campaign(max_turns=max_turns)
    campaign.systems.set([make_system("test-echo", "parrot-x", "System Q")])
    campaign.tasks.set([make_task()])
    return campaign


def simulate(campaign: Campaign, server: FakeOpenAI, personas: str = "Trust/Seniors") -> Job:
    settings = {"base_url": server.base_url, "model": server.model, "concurrency": 1}
    return jobs.run(create_simulation_job(campaign, settings, parse_personas(personas)))


def simulated(campaign: Campaign) -> ChatSession:
    return ChatSession.objects.get(campaign=campaign, kind=ChatSession.Kind.SIMULATED)


def dialogue(session: ChatSession) -> list[tuple[str, str, str]]:
    return list(session.messages.order_by("position").values_list("role", "text", "feelings"))


# Personas and answers -----------------------------------------------------------------------


def test_there_are_48_personas_each_with_its_own_paragraph_in_both_languages() -> None:
    assert len(EMOTIONS) == 12 and len(AGE_GROUPS) == 4 and len(ALL_PERSONAS) == 48
    english = {persona.description("en") for persona in ALL_PERSONAS}
    chinese = {persona.description("zh") for persona in ALL_PERSONAS}
    assert len(english) == len(chinese) == 48
    assert all("\n" not in text for text in english | chinese)
    curious_teen = parse_personas("Curiosity/Teens")[0]
    assert curious_teen.description("en").startswith("You like to know what your options are.")
    assert "You are a teenager" in curious_teen.description("en")
    assert "你是个青少年" in curious_teen.description("zh-hans")


def test_personas_are_named_emotion_slash_age_group_with_wildcards() -> None:
    chosen = parse_personas("frustration/seniors, Trust/*, Trust/Adults")
    assert [persona.key for persona in chosen] == [
        "Frustration/Seniors",
        "Trust/Adults",
        "Trust/Children",
        "Trust/Teens",
        "Trust/Seniors",
    ]
    assert len(parse_personas("all")) == 48 and len(parse_personas("*/Children")) == 12
    for spec, message in (
        ("Joy/Adults", "unknown emotion 'Joy'"),
        ("Trust", "Emotion/Age group"),
        (" , ", "at least one persona"),
    ):
        with pytest.raises(PersonaError, match=message):
            parse_personas(spec)


def test_a_turn_puts_the_inner_state_first_and_may_end_with_the_mark() -> None:
    assert read_turn({"feelings": " 开心 ", "utterance": "好的，谢谢[END]"}) == (
        SimulatedTurn("开心", "好的，谢谢", True)
    )
    assert read_turn({"feelings": "满意", "utterance": "[END]"}).utterance == ""
    for value, message in (
        ({"utterance": "好的"}, "feelings must be a non-empty string"),
        ({"feelings": "嗯", "utterance": "  "}, "the utterance is empty"),
        ({"feelings": "嗯", "utterance": 3}, "utterance must be a string"),
    ):
        with pytest.raises(ValueError, match=message):
            read_turn(value)


def test_a_rating_needs_a_reason_and_a_value_on_the_judges_scale_for_each_question() -> None:
    good = {
        "completed": {"reason": "订好了", "value": True},
        "satisfaction": {"reason": "还行", "value": -2},
        "fluency": {"reason": "通顺", "value": 0},
        "guidance": {"reason": "无", "value": 1},
    }
    assert read_rating(good).satisfaction == -2
    assert read_rating(good).reasons == {
        "completed": "订好了",
        "satisfaction": "还行",
        "fluency": "通顺",
        "guidance": "无",
    }
    for change, message in (
        ({"satisfaction": {"reason": "好", "value": 3}}, "satisfaction must be one of -2"),
        ({"completed": {"reason": "好", "value": 1}}, "completed must be true or false"),
        ({"fluency": {"reason": "", "value": 1}}, "fluency needs a reason"),
        ({"guidance": 1}, "guidance must be an object"),
    ):
        with pytest.raises(ValueError, match=message):
            read_rating({**good, **change})


# Dialogues ----------------------------------------------------------------------------------


def test_the_dialogue_ends_on_the_mark_and_keeps_persona_feelings_and_reasons(
    fake_openai: FakeOpenAI,
) -> None:
    campaign = parrot_campaign()
    fake_openai.script(
        turn("有点期待", "你好，我想订明天去上海的机票"),
        turn("它只会重复我的话", "算了，谢谢[END]"),
        rating(completed=False, satisfaction=-1),
    )

    job = simulate(campaign, fake_openai)

    assert job.status == Job.Status.DONE, job.errors
    session = simulated(campaign)
    assert session.user is None and session.end_reason == ChatSession.EndReason.USER
    assert session.persona == {
        "emotion": "Trust",
        "age_group": "Seniors",
        "text": parse_personas("Trust/Seniors")[0].description("zh"),
        "simulator": SIMULATOR,
    }
    assert dialogue(session) == [
        ("user", "你好，我想订明天去上海的机票", "有点期待"),
        ("system", "echo: 你好，我想订明天去上海的机票", ""),
        ("user", "算了，谢谢", "它只会重复我的话"),
        ("system", "echo: 算了，谢谢", ""),
    ]
    stored = Rating.objects.get(session=session)
    assert (stored.completed, stored.satisfaction, stored.fluency, stored.guidance) == (
        False,
        -1,
        1,
        0,
    )
    assert stored.reasons["guidance"] == "guidance 的理由"
    second = fake_openai.requests[1]["messages"]
    assert json.loads(second[2]["content"]) == {
        "feelings": "有点期待",
        "utterance": "你好，我想订明天去上海的机票",
    }
    assert second[3] == {"role": "user", "content": "echo: 你好，我想订明天去上海的机票"}
    assert job.result["dialogues"] == 1 and job.result["rated"] == 1
    assert job.result["requests"] == 3 and job.result["goal_met"] == 0


def test_the_mark_alone_ends_the_dialogue_without_sending_it(fake_openai: FakeOpenAI) -> None:
    campaign = parrot_campaign()
    fake_openai.script(turn("好奇", "上海有航班吗"), turn("够了", "[END]"), rating())

    simulate(campaign, fake_openai)

    session = simulated(campaign)
    assert [role for role, _text, _feelings in dialogue(session)] == ["user", "system"]
    assert session.end_reason == ChatSession.EndReason.USER


def test_the_dialogue_is_stopped_at_the_campaigns_turn_limit(fake_openai: FakeOpenAI) -> None:
    campaign = parrot_campaign(max_turns=4)
    fake_openai.script(turn("急", "订机票"), turn("更急", "快点"), rating(completed=False))

    job = simulate(campaign, fake_openai)

    session = simulated(campaign)
    assert session.end_reason == ChatSession.EndReason.TURN_LIMIT
    assert session.turn_count() == 4 and len(fake_openai.requests) == 3
    assert job.result["rated"] == 1


def test_the_prompts_hold_the_task_card_and_persona_but_never_the_goal_or_the_system(
    fake_openai: FakeOpenAI,
) -> None:
    campaign = parrot_campaign()
    fake_openai.script(turn("嗯", "订机票"), turn("好", "谢谢[END]"), rating())

    simulate(campaign, fake_openai)

    system = DialogueSystem.objects.get(slug="parrot-x")
    task = TaskCard.objects.get()
    persona = parse_personas("Trust/Seniors")[0]
    for body in fake_openai.requests:
        sent = json.dumps(body, ensure_ascii=False)
        assert task.description_zh in sent and persona.description("zh") in sent
        for secret in (system.slug, system.name, system.alias, "intents", "from_city", '北京"'):
            assert secret not in sent
        assert json.dumps(FLIGHT_GOAL, ensure_ascii=False) not in sent
        assert task.description_en not in sent


def test_a_simulated_judge_books_with_the_reference_system_and_meets_the_goal(
    fake_openai: FakeOpenAI, builtin_systems: dict[str, DialogueSystem]
) -> None:
    load_task_cards()
    campaign = make_campaign(timeout=10.0)
    campaign.systems.set([builtin_systems["reference"]])
    campaign.tasks.set(TaskCard.objects.filter(key="flight-01"))
    # What tests/liveeval/scripts/flight-01.txt has a judge type for this card.
    fake_openai.script(
        turn("希望顺利订到", "查询明天从北京去上海的机票"),
        turn("它在问时间", "上午或者中午吧"),
        turn("这班合适", "好的"),
        turn("订好了，很满意", "没有了，谢谢[END]"),
        rating(completed=True, satisfaction=2),
    )

    job = simulate(campaign, fake_openai, "Satisfaction/Adults")

    assert job.status == Job.Status.DONE, job.errors
    session = simulated(campaign)
    booking = Booking.objects.get(session=session)
    assert booking.domain == "flight" and booking.details["from_city"] == "北京"
    card = TaskCard.objects.get(key="flight-01")
    assert session.task == card and goal_met(card.goal, [booking], session.today) is True
    assert job.result["goal_met"] == 1 and job.result["rated"] == 1
    assert session.rating.completed is True
    assert [role for role, _text, _feelings in dialogue(session)].count("user") == 4


def test_simulated_dialogues_never_take_a_judges_place(
    fake_openai: FakeOpenAI, judge: User
) -> None:
    campaign = parrot_campaign()
    system, task = campaign.systems.get(), campaign.tasks.get()
    pending = judged_session(judge, system, campaign, task=task, status=ChatSession.Status.PENDING)
    fake_openai.script(turn("嗯", "订机票"), turn("好", "谢谢[END]"), rating())

    simulate(campaign, fake_openai)

    pending.refresh_from_db()
    assert pending.status == ChatSession.Status.PENDING and pending.user == judge
    assert not pending.messages.exists()
    assert simulated(campaign).user is None
    assert progress(campaign)["overall"].pending == 1


def test_a_turn_malformed_twice_ends_the_dialogue_and_is_recorded(
    fake_openai: FakeOpenAI,
) -> None:
    campaign = parrot_campaign()
    fake_openai.script(reply("你好"), reply('{"utterance": "你好"}'))

    job = simulate(campaign, fake_openai)

    assert job.status == Job.Status.DONE
    assert job.result["failed"] == 1 and job.result["rated"] == 0
    [error] = job.errors
    assert error.startswith("flight-x × parrot-x × Trust/Seniors: the simulator's turn")
    assert error.endswith('it said: {"utterance": "你好"}')
    session = simulated(campaign)
    assert session.status == ChatSession.Status.ENDED and not session.messages.exists()
    assert not Rating.objects.exists()


class Killed(BaseException):
    """Stands for the process dying: no ``except Exception`` in the job runner catches it."""


def test_a_killed_simulation_resumes_mid_dialogue_without_holding_anything_twice(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    # One part, run here: the kill leaves it running, as a dead worker would.
    settings.JOB_PARTS = 1
    campaign = parrot_campaign()
    fake_openai.script(
        turn("一", "订机票"),
        turn("二", "谢谢[END]"),
        rating(),
        turn("三", "我要火车票"),
        turn("四", "[END]"),
        rating(),
    )
    snapshot = dialogue_loop._snapshot
    calls: list[int] = []

    def dies_before_the_second_turn(session_id: int) -> dialogue_loop.Snapshot:
        calls.append(session_id)
        if len(calls) == 3:
            raise Killed
        return snapshot(session_id)

    monkeypatch.setattr(dialogue_loop, "_snapshot", dies_before_the_second_turn)
    job = create_simulation_job(
        campaign,
        {"base_url": fake_openai.base_url, "model": fake_openai.model, "concurrency": 1},
        parse_personas("Trust/Seniors,Delight/Teens"),
    )
    with pytest.raises(Killed):
        jobs.run(job)
    monkeypatch.setattr(dialogue_loop, "_snapshot", snapshot)
    assert len(fake_openai.requests) == 1
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    jobs.reap_interrupted()
    job.refresh_from_db()

    resumed = jobs.resume(job, background=False)

    assert isinstance(resumed, Job) and resumed.status == Job.Status.DONE
    first, second = ChatSession.objects.filter(campaign=campaign).order_by("pk")
    assert [text for _role, text, _feelings in dialogue(first)] == [
        "订机票",
        "echo: 订机票",
        "谢谢",
        "echo: 谢谢",
    ]
    assert first.persona["emotion"] == "Trust" and second.persona["emotion"] == "Delight"
    assert len(fake_openai.requests) == 6 and resumed.result["rated"] == 2
    # The resumed turn was asked with the first exchange already in its history.
    assert fake_openai.requests[1]["messages"][3]["content"] == "echo: 订机票"


def test_a_simulation_killed_while_the_system_answers_goes_on_at_once_on_resume(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = parrot_campaign()
    fake_openai.script(turn("一", "订机票"), turn("二", "快点"), turn("三", "谢谢[END]"), rating())
    store = dialogue_loop._store_feelings
    calls: list[int] = []

    def dies_in_the_second_exchange(message_id: int, feelings: str) -> None:
        calls.append(message_id)
        if len(calls) == 2:
            raise Killed
        store(message_id, feelings)

    monkeypatch.setattr(dialogue_loop, "_store_feelings", dies_in_the_second_exchange)
    job = create_simulation_job(
        campaign,
        {"base_url": fake_openai.base_url, "model": fake_openai.model},
        parse_personas("Trust/Seniors"),
    )
    with pytest.raises(Killed):
        jobs.run(job)
    monkeypatch.setattr(dialogue_loop, "_store_feelings", store)
    assert simulated(campaign).replying_since is not None
    Job.objects.filter(pk=job.pk).update(status=Job.Status.INTERRUPTED)
    job.refresh_from_db()

    resumed = jobs.resume(job, background=False)

    assert isinstance(resumed, Job) and resumed.status == Job.Status.DONE
    assert resumed.result["rated"] == 1 and resumed.errors == []
    assert [text for _role, text, _feelings in dialogue(simulated(campaign))] == [
        "订机票",
        "echo: 订机票",
        "快点",
        "谢谢",
        "echo: 谢谢",
    ]


def test_a_run_finished_but_not_recorded_is_not_held_again_on_resume(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = parrot_campaign()
    fake_openai.script(turn("一", "订机票[END]"), rating())
    finish = SimulationRun.finish

    def dies(run: SimulationRun, *args: Any) -> None:
        raise Killed

    monkeypatch.setattr(SimulationRun, "finish", dies)
    job = create_simulation_job(
        campaign,
        {"base_url": fake_openai.base_url, "model": fake_openai.model},
        parse_personas("Trust/Seniors"),
    )
    with pytest.raises(Killed):
        jobs.run(job)
    monkeypatch.setattr(SimulationRun, "finish", finish)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.INTERRUPTED)
    job.refresh_from_db()

    resumed = jobs.resume(job, background=False)

    assert isinstance(resumed, Job) and resumed.result["rated"] == 1
    assert len(fake_openai.requests) == 2 and simulated(campaign).rating is not None


# Results, annotation, command and pages -----------------------------------------------------


def test_the_leaderboard_sets_simulated_judges_beside_human_ones(
    fake_openai: FakeOpenAI, judge: User, coordinator_client: Client
) -> None:
    campaign = parrot_campaign()
    system, task = campaign.systems.get(), campaign.tasks.get()
    human = judged_session(judge, system, campaign, task=task)
    human.end(ChatSession.EndReason.USER)
    human.messages.create(position=0, role="user", text="订机票")
    Rating.objects.create(session=human, completed=False, satisfaction=-1, fluency=0, guidance=0)
    fake_openai.script(turn("嗯", "订机票"), turn("好", "谢谢[END]"), rating(completed=False))

    simulate(campaign, fake_openai)

    html = coordinator_client.get(reverse("liveeval:leaderboard", args=[campaign.pk])).content
    page = html.decode()
    assert 'id="leaderboard-human"' in page and 'id="leaderboard-simulated"' in page
    agreement = page[page.index('id="source-agreement"') :]
    # One shared (task, system) pair: C agrees (both 0), Sa does not (−1 against 1).
    assert "<td>task completion</td><td>1</td>" in agreement
    assert '<td class="exact">1.000<br>' in agreement
    assert '<td class="exact">0.000<br>' in agreement
    # Each beside its chance levels: C's 1.000 is what two sources that always answer 0 get.
    assert "by chance: 0.500 uniform on the scale, 1.000 from the observed ratings" in agreement
    assert "by chance: 0.200 uniform on the scale, 0.000 from the observed ratings" in agreement
    # One pair is far from the 30 per judge the alternative annotator test needs.
    verdict = page[page.index('id="source-verdict"') : page.index('id="source-agreement"')]
    assert "There is no verdict on whether simulated users can stand in" in verdict
    assert "cannot run<br>" in agreement

    coordinator_client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    chinese = coordinator_client.get(reverse("liveeval:leaderboard", args=[campaign.pk]))
    assert "尚无法判断模拟用户能否代替人工评测员" in chinese.content.decode()


def test_ended_dialogues_go_to_annotation_with_persona_feelings_and_rating(
    fake_openai: FakeOpenAI, judge: User
) -> None:
    campaign = parrot_campaign()
    system, task = campaign.systems.get(), campaign.tasks.get()
    human = judged_session(judge, system, campaign, task=task)
    human.messages.create(position=0, role="user", text="人类的话")
    human.end(ChatSession.EndReason.USER)
    fake_openai.script(turn("期待", "订机票"), turn("好", "谢谢[END]"), rating())
    simulate(campaign, fake_openai)

    result = send_to_annotation(campaign, "Simulated check")

    assert result.transcripts == 1
    transcript = AnnotationCampaign.objects.get(name="Simulated check").transcripts.get()
    session = simulated(campaign)
    assert transcript.external_id == f"live-{campaign.pk}-{session.pk}"
    assert transcript.system == "parrot-x" and transcript.lang == "zh"
    assert (transcript.persona_emotion, transcript.persona_age_group) == ("Trust", "Seniors")
    assert transcript.turns[0] == {"role": "user", "text": "订机票", "feelings": "期待"}
    assert transcript.turns[1] == {"role": "system", "text": "echo: 订机票"}
    metadata = transcript.metadata
    # The alias this campaign's judges knew the system by, not the system's global one.
    code = SystemAlias.objects.get(campaign=campaign, system=session.system).code
    assert metadata["alias"] == f"System {code}" != "System Q" and metadata["task"] == "flight-x"
    assert metadata["rating"]["satisfaction"] == 1 and metadata["goal_met"] is False
    assert metadata["simulator"] == SIMULATOR
    both = send_to_annotation(campaign, "Simulated check", ["simulated", "judged"])
    assert (both.transcripts, both.created, both.updated) == (2, 1, 1)


def test_the_simulate_command_runs_the_personas_then_sends_the_dialogues(
    fake_openai: FakeOpenAI,
) -> None:
    campaign = parrot_campaign()
    fake_openai.script(turn("嗯", "订机票[END]"), rating())
    out = io.StringIO()

    call_command(
        "simulate",
        campaign.name,
        "--personas",
        "Boredom/Teens",
        "--base-url",
        fake_openai.base_url,
        "--model",
        fake_openai.model,
        "--send-to-annotation",
        "From the command",
        stdout=out,
    )

    lines = out.getvalue().strip().splitlines()
    assert json.loads(lines[-2].split(" done: ", 1)[1])["rated"] == 1
    assert lines[-1] == "sent 1 dialogue(s) to the annotation campaign 'From the command' (1 new)"
    assert simulated(campaign).persona["age_group"] == "Teens"


def test_the_simulate_command_names_what_is_wrong() -> None:
    campaign = parrot_campaign()
    url = "http://127.0.0.1:9/v1"
    with pytest.raises(CommandError, match="unknown emotion 'Joy'"):
        call_command("simulate", campaign.name, "--personas", "Joy/Teens", "--base-url", url,
                     "--model", "m")  # fmt: skip
    with pytest.raises(CommandError, match="not in campaign 'SMP demo': nope"):
        call_command("simulate", campaign.name, "--personas", "all", "--tasks", "nope",
                     "--base-url", url, "--model", "m")  # fmt: skip
    with pytest.raises(CommandError, match="no live campaign named or numbered 'Other'"):
        call_command("simulate", "Other", "--personas", "all")


def test_a_coordinator_starts_simulated_judges_from_the_page_and_sends_them_on(
    fake_openai: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    coordinator_client: Client,
    settings: Settings,
) -> None:
    monkeypatch.setattr(jobs, "start", jobs.run)
    settings.LLM_KEYS = f"fake:@{fake_openai.base_url}"
    campaign = parrot_campaign()
    url = reverse("simulation:campaign", args=[campaign.pk])
    assert 'id="simulation-form"' in coordinator_client.get(url).content.decode()
    fake_openai.script(*[turn("嗯", "订机票[END]"), rating()] * 2)

    response = coordinator_client.post(
        url,
        {
            "credential": "fake",
            "model": fake_openai.model,
            "concurrency": 1,
            "emotions": ["Surprise"],
            "age_groups": ["Children", "Adults"],
        },
    )

    job = Job.objects.get(kind=SIMULATE_JOB)
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.pk}/"
    assert job.params["personas"] == ["Surprise/Children", "Surprise/Adults"]
    assert job.status == Job.Status.DONE and job.result["rated"] == 2
    page = coordinator_client.get(url).content.decode()
    assert page.count("Surprise · ") == 2
    sent = coordinator_client.post(
        reverse("from_live:send", args=[campaign.pk]),
        {"annotation_campaign": "From the page", "kinds": ["simulated"]},
    )
    target = AnnotationCampaign.objects.get(name="From the page")
    assert sent.status_code == 302 and sent["Location"] == target.get_absolute_url()
    assert target.transcripts.count() == 2


def test_only_coordinators_reach_the_simulation_pages(judge_client: Client) -> None:
    campaign = parrot_campaign()
    for url in (
        reverse("simulation:index"),
        reverse("simulation:campaign", args=[campaign.pk]),
    ):
        assert judge_client.get(url).status_code == 403
    assert judge_client.post(reverse("from_live:send", args=[campaign.pk])).status_code == 403
