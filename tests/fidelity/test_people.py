"""People answer a study's prompts in the annotation workspace; their answers come back typed."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation

from annotation import queue
from annotation.models import Assignment, Campaign, Dimension, Transcript
from evalsite import roles
from fidelity import people
from fidelity.content import (
    AcceptRejectPayload,
    Aspect,
    AspectsPayload,
    ChoicePayload,
    FeedbackContent,
    MentionsPayload,
    TextPayload,
    YesNoPayload,
    payload_json,
)
from fidelity.models import Answer, PeopleCampaign, Simulator, Study
from fidelity.prompts import PromptCounts, PromptsError, make_prompts
from fidelity.responses import study_groups
from tests.annotation.conftest import person

pytestmark = pytest.mark.django_db

COUNTS = PromptCounts(items_talk=2, bin_pref=2, open_pref=1, rec_request=1, items_per_persona=2)


@pytest.fixture
def drawn(study: Study) -> Study:
    make_prompts(study, COUNTS)
    return study


def campaign_of(study: Study, task: str) -> Campaign:
    return PeopleCampaign.objects.get(study=study, task=task).campaign


def hold(user: User, campaign: Campaign, external_id: str) -> Transcript:
    """``user`` takes items from the queue, skipping others, until ``external_id`` comes."""
    transcript = campaign.transcripts.get(external_id=external_id)
    if Assignment.objects.filter(transcript=transcript, annotator=user).exists():
        queue.take_up(user, transcript)
    while True:
        held = queue.next_for(user, campaign)
        assert held is not None, f"{external_id} never came to {user}"
        if held.transcript_id == transcript.pk:
            return transcript
        queue.skip(user, held.transcript)


def answer(user: User, campaign: Campaign, external_id: str, **values: Any) -> Assignment:
    """``user`` takes the item ``external_id`` from the queue and submits ``values``."""
    transcript = hold(user, campaign, external_id)
    dimensions = {d.key: d for d in campaign.rubric.dimensions.all()}
    answers = [
        queue.Answer(dimensions[key], 0, text=value)
        if dimensions[key].kind == Dimension.Kind.TEXT
        else queue.Answer(dimensions[key], value)
        for key, value in values.items()
    ]
    return queue.submit(user, transcript, answers, 1000)


def people_answer(study: Study, key: str, user: User) -> Any:
    return Answer.objects.get(
        prompt__key=key, group="people", responder=people.responder_id(study, user.pk)
    ).said()


class TestSending:
    def test_each_task_gets_a_campaign_with_one_item_per_prompt_and_r_people(
        self, drawn: Study
    ) -> None:
        sent = people.send_prompts(drawn, 2)
        counts = {row.task: row.added for row in sent}
        assert counts == {
            task: drawn.prompts.filter(task=task).count()
            for task in ("items_talk", "bin_pref", "open_pref", "rec_request", "feedback")
        }
        for row in sent:
            assert row.campaign.annotations_per_item == 2
            keys = set(row.campaign.transcripts.values_list("external_id", flat=True))
            assert keys == set(drawn.prompts.filter(task=row.task).values_list("key", flat=True))
        feedback = campaign_of(drawn, "feedback")
        for transcript in feedback.transcripts.all():
            shown = drawn.prompts.get(key=transcript.external_id).shown()
            assert isinstance(shown, FeedbackContent)
            assert transcript.is_pairwise == shown.is_comparison
        assert people.send_prompts(drawn, 5)[0].added == 0
        assert campaign_of(drawn, "bin_pref").annotations_per_item == 2

    def test_items_show_the_persona_the_liked_items_and_the_two_recommendations(
        self, drawn: Study
    ) -> None:
        people.send_prompts(drawn)
        talk = campaign_of(drawn, "items_talk").transcripts.get(external_id="items_talk-1")
        shown = drawn.prompts.get(key="items_talk-1").shown()
        assert talk.kind == Transcript.Kind.PROMPT and talk.prompt == shown.persona  # type: ignore[union-attr]
        assert talk.prompt_items == [item.title for item in shown.items]  # type: ignore[union-attr]
        request = campaign_of(drawn, "rec_request").transcripts.get()
        assert request.prompt == "" and len(request.prompt_items) == 3
        compared = campaign_of(drawn, "feedback").transcripts.get(external_id="feedback-3")
        assert compared.prompt == "A heist film please"
        assert compared.response_a is not None and compared.response_b is not None
        assert {compared.response_a["text"], compared.response_b["text"]} >= {"Try Heat."}

    def test_prompts_sent_to_people_are_not_drawn_again(self, drawn: Study) -> None:
        people.send_prompts(drawn)
        with pytest.raises(PromptsError, match="sent to people"):
            make_prompts(drawn, COUNTS)

    def test_exactly_r_people_answer_each_prompt(self, drawn: Study) -> None:
        people.send_prompts(drawn, 1)
        campaign = campaign_of(drawn, "rec_request")
        answer(person("ann", "annotators"), campaign, "rec_request-1", request="Films like these?")
        assert queue.next_for(person("bob", "annotators"), campaign) is None


class TestCollecting:
    def test_every_task_comes_back_as_a_typed_answer_of_the_people_group(
        self, drawn: Study
    ) -> None:
        people.send_prompts(drawn)
        ann = person("ann", "annotators")
        answer(ann, campaign_of(drawn, "items_talk"), "items_talk-1", films=self_films(drawn))
        answer(ann, campaign_of(drawn, "bin_pref"), "bin_pref-1", watch=1)
        answer(
            ann,
            campaign_of(drawn, "open_pref"),
            "open_pref-1",
            review="Tense.",
            liked_aspects="plot, music",
            disliked_aspects="- length\n",
            neutral_aspects="score",
        )
        answer(ann, campaign_of(drawn, "rec_request"), "rec_request-1", request="More like these")
        answer(ann, campaign_of(drawn, "feedback"), "feedback-1", accept=0)
        collected = people.collect_answers(drawn)
        assert (collected.stored, collected.incomplete) == (5, 0)
        talk = people_answer(drawn, "items_talk-1", ann)
        assert isinstance(talk, MentionsPayload) and talk.mentions == ("m1", "m2", "m3")
        assert people_answer(drawn, "bin_pref-1", ann) == YesNoPayload(True)
        assert people_answer(drawn, "open_pref-1", ann) == AspectsPayload(
            "Tense.",
            (
                Aspect("plot", "positive"),
                Aspect("music", "positive"),
                Aspect("length", "negative"),
                Aspect("score", "neutral"),
            ),
        )
        assert people_answer(drawn, "rec_request-1", ann) == TextPayload("More like these")
        assert people_answer(drawn, "feedback-1", ann) == AcceptRejectPayload(False)
        stored = Answer.objects.filter(group="people")
        assert {a.source for a in stored} == {"people"} and {a.user_id for a in stored} == {ann.pk}
        assert all("ann" not in a.responder for a in stored)

    @pytest.mark.parametrize(
        ("swapped", "value", "chosen", "first"),
        [(False, 0, "a", "a"), (True, 0, "a", "b"), (True, 2, "b", "b"), (True, 1, "neither", "b")],
    )
    def test_a_comparison_keeps_the_choice_in_the_prompts_terms_and_the_side_shown_first(
        self, drawn: Study, swapped: bool, value: int, chosen: str, first: str
    ) -> None:
        people.send_prompts(drawn)
        campaign = campaign_of(drawn, "feedback")
        ann = person("ann", "annotators")
        assignment = answer(ann, campaign, "feedback-3", choice=value)
        Assignment.objects.filter(pk=assignment.pk).update(swapped=swapped)
        people.collect_answers(drawn)
        assert people_answer(drawn, "feedback-3", ann) == ChoicePayload(chosen, first)  # type: ignore[arg-type]

    def test_a_revision_replaces_the_answer_and_people_keep_one_pseudonym(
        self, drawn: Study
    ) -> None:
        people.send_prompts(drawn)
        campaign = campaign_of(drawn, "bin_pref")
        ann, bob = person("ann", "annotators"), person("bob", "annotators")
        answer(ann, campaign, "bin_pref-1", watch=1)
        answer(ann, campaign, "bin_pref-2", watch=1)
        answer(bob, campaign, "bin_pref-1", watch=0)
        people.collect_answers(drawn)
        queue.submit(
            ann,
            campaign.transcripts.get(external_id="bin_pref-1"),
            [queue.Answer(campaign.rubric.dimensions.get(key="watch"), 0)],
            10,
        )
        assert people.collect_answers(drawn).stored == 3
        assert people_answer(drawn, "bin_pref-1", ann) == YesNoPayload(False)
        responders = set(Answer.objects.values_list("responder", flat=True))
        assert len(responders) == 2
        assert people.responder_id(drawn, ann.pk) != people.responder_id(
            Study.objects.create(name="Other"), ann.pk
        )

    def test_people_answers_reach_the_measures_beside_a_simulators(self, drawn: Study) -> None:
        people.send_prompts(drawn)
        ann = person("ann", "annotators")
        answer(ann, campaign_of(drawn, "bin_pref"), "bin_pref-1", watch=1)
        simulator = Simulator.objects.create(study=drawn, label="gpt-DI", configuration="DI")
        Answer.objects.create(
            prompt=drawn.prompts.get(key="bin_pref-1"),
            group="gpt-DI",
            responder="gpt-DI-1",
            source="simulator",
            simulator=simulator,
            payload=payload_json(YesNoPayload(False)),
        )
        people.collect_answers(drawn)
        groups = {group.group: group for group in study_groups(drawn)}
        assert [a.yes for a in groups["people"].bin_pref] == [True]
        assert [a.yes for a in groups["gpt-DI"].bin_pref] == [False]


def self_films(study: Study) -> str:
    """Names Heat bare, Alien with its year, Jaws in quotes: the three ways people write."""
    return 'Heat\nAlien (1979)\nI would say "Jaws"\nNot a film at all'


@pytest.fixture
def coordinator(db: None) -> Client:
    client = Client()
    client.force_login(person("cora", roles.COORDINATORS))
    return client


class TestPages:
    def test_the_coordinator_sends_the_prompts_and_collects_the_answers(
        self, drawn: Study, coordinator: Client
    ) -> None:
        with translation.override("en"):
            page = coordinator.get(reverse("fidelity:study", args=[drawn.pk])).content.decode()
            assert 'id="send-form"' in page and 'id="collect-form"' not in page
            sent = coordinator.post(
                reverse("fidelity:send_to_people", args=[drawn.pk]), {"people": 2}, follow=True
            )
            html = sent.content.decode()
        assert f"{drawn.prompts.count()} prompts sent to annotators." in html
        assert 'id="collect-form"' in html and "Test study · Items talk" in html
        assert PeopleCampaign.objects.filter(study=drawn).count() == 5
        answer(person("ann", "annotators"), campaign_of(drawn, "bin_pref"), "bin_pref-1", watch=1)
        with translation.override("en"):
            collected = coordinator.post(
                reverse("fidelity:collect_people", args=[drawn.pk]), follow=True
            ).content.decode()
        assert "1 answers from people stored; 0 annotations left out." in collected

    def test_a_bad_number_of_people_sends_nothing(self, drawn: Study, coordinator: Client) -> None:
        coordinator.post(reverse("fidelity:send_to_people", args=[drawn.pk]), {"people": 0})
        assert not PeopleCampaign.objects.exists()

    def test_annotators_cannot_send_or_collect(self, drawn: Study) -> None:
        client = Client()
        client.force_login(person("ann", "annotators"))
        for name in ("fidelity:send_to_people", "fidelity:collect_people"):
            assert client.post(reverse(name, args=[drawn.pk]), {"people": 2}).status_code == 403
        assert not PeopleCampaign.objects.exists()

    def test_an_annotator_answers_a_prompt_in_the_workspace_blind_to_simulators(
        self, drawn: Study
    ) -> None:
        people.send_prompts(drawn)
        prompt = drawn.prompts.get(key="items_talk-1")
        simulator = Simulator.objects.create(study=drawn, label="gpt-DI", configuration="DI")
        Answer.objects.create(
            prompt=prompt,
            group="gpt-DI",
            responder="gpt-DI-1",
            source="simulator",
            simulator=simulator,
            payload=payload_json(MentionsPayload("SIMULATED-ANSWER-TEXT", ("m1",))),
        )
        ann = person("ann", "annotators")
        client = Client()
        client.force_login(ann)
        campaign = campaign_of(drawn, "items_talk")
        transcript = hold(ann, campaign, "items_talk-1")
        url = reverse("annotation:item", args=[campaign.pk, transcript.pk])
        with translation.override("en"):
            html = client.get(url).content.decode()
        assert prompt.shown().persona[:30] in html  # type: ignore[union-attr]
        assert '<textarea name="answer_films"' in html
        assert "SIMULATED-ANSWER-TEXT" not in html and "gpt-DI" not in html
        client.post(url, {"answer_films": "Heat", "time_on_task_ms": 10})
        people.collect_answers(drawn)
        assert people_answer(drawn, "items_talk-1", ann).mentions == ("m1",)
