from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation import queue
from annotation.models import Assignment, Campaign, Response, Transcript
from tests.annotation.conftest import dialogue, pairwise, person
from tests.chinese_text import english_words

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
LIKERT = (
    "relevance",
    "quality",
    "manner",
    "human_likeness",
    "persuasiveness",
    "social_awareness",
    "overall",
    "user_satisfaction",
)


@pytest.fixture
def ann(db: None) -> User:
    return person("ann", "annotators")


@pytest.fixture
def client_of(ann: User) -> Client:
    client = Client()
    client.force_login(ann)
    return client


def item_url(campaign: Campaign, external_id: str) -> str:
    transcript = campaign.transcripts.get(external_id=external_id)
    return reverse("annotation:item", args=[campaign.pk, transcript.pk])


def answers(value: int = 4, accepted: bool = True, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {f"answer_{key}": value for key in LIKERT}
    if accepted:
        data["answer_acceptance_follows_preferences"] = 1
    data["time_on_task_ms"] = 12_345
    data.update(extra)
    return data


def start(client: Client, campaign: Campaign) -> str:
    response = client.get(reverse("annotation:work", args=[campaign.pk]))
    assert response.status_code == 302
    return str(response["Location"])


class TestShowing:
    def test_work_sends_the_annotator_to_their_next_item(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        assert start(client_of, campaign) == item_url(campaign, "t001")
        assert Assignment.objects.get().status == Assignment.Status.HELD

    def test_the_item_shows_numbered_bubbles_and_every_level_as_an_option(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        html = client_of.get(start(client_of, campaign)).content.decode()
        assert '<li class="bubble user" data-turn="1">' in html
        assert "#2 · System" in html and "Try Airplane! (1980)." in html
        assert html.count('<fieldset class="question') == 9
        assert html.count('type="radio"') == 8 * 5 + 2
        assert "Every response either clarifies the user&#x27;s preferences" in html
        assert 'data-key="5"' in html and "annotate.js" in html
        assert "Hopeful." not in html

    def test_the_acceptance_question_is_asked_only_after_an_acceptance(
        self, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(
            rows=[dialogue("n1", outcome={"accepted": False, "accepted_items": [], "turn": None})]
        )
        html = client_of.get(start(client_of, campaign)).content.decode()
        assert html.count('<fieldset class="question') == 8
        assert "acceptance_follows_preferences" not in html

    def test_feelings_show_when_the_campaign_allows(
        self, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(items=1, show_feelings=True)
        html = client_of.get(start(client_of, campaign)).content.decode()
        assert '<span class="feelings">' in html and "Hopeful." in html

    def test_the_persona_reads_in_the_readers_language(
        self, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(items=1)
        item = start(client_of, campaign)
        client_of.cookies["django_language"] = "en"
        assert "Curiosity · Adults" in client_of.get(item).content.decode()
        client_of.cookies["django_language"] = "zh-hans"
        html = client_of.get(item).content.decode()
        assert "好奇 · 成年人" in html and "Curiosity" not in html

    def test_the_campaign_and_persona_labels_read_in_chinese(
        self, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(items=2)
        item = start(client_of, campaign)
        client_of.cookies["django_language"] = "zh-hans"
        html = client_of.get(item).content.decode()
        assert "<strong>人设：</strong>" in html and "活动：" in html
        assert "Persona:" not in html and "Campaign:" not in html
        data = [campaign.name, "ann", *LIKERT, "acceptance_follows_preferences"]
        for transcript in campaign.transcripts.all():
            data += [transcript.external_id, transcript.system, transcript.persona_text]
            data += [str(turn.get("text", "")) for turn in transcript.turns]
        assert english_words(html, data) == []

    def test_it_shows_chinese_questions_and_levels_in_chinese(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        client_of.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
        html = client_of.get(start(client_of, campaign)).content.decode()
        assert "系统的回复是否易于理解、表达清晰？" in html
        assert "每条回复都清楚、简短、有条理，无须再读一遍。" in html

    def test_when_nothing_is_left_it_says_so(
        self, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(items=0)
        response = client_of.get(reverse("annotation:work", args=[campaign.pk]))
        assert response.status_code == 200
        assert "Nothing is waiting for you" in response.content.decode()

    def test_an_item_that_is_not_theirs_sends_them_to_their_next_item(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        response = client_of.get(item_url(campaign, "t003"))
        assert response.status_code == 302
        assert response["Location"] == reverse("annotation:work", args=[campaign.pk])

    def test_a_campaign_with_a_team_is_closed_to_others(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        campaign.annotators.add(person("someone", "annotators"))
        assert client_of.get(reverse("annotation:work", args=[campaign.pk])).status_code == 403


class TestSubmitting:
    def test_htmx_gets_the_next_item_as_a_partial_with_its_url_pushed(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        url = start(client_of, campaign)
        response = client_of.post(url, answers(answer_overall=2), headers=HTMX)
        assert response.status_code == 200
        assert response["HX-Push-Url"] == item_url(campaign, "t002")
        html = response.content.decode()
        assert html.lstrip().startswith('<div id="workspace"') and "<html" not in html
        stored = dict(Response.objects.values_list("dimension__key", "value"))
        assert stored["overall"] == 2 and stored["manner"] == 4
        assert stored["acceptance_follows_preferences"] == 1 and len(stored) == 9
        assignment = Assignment.objects.get(transcript__external_id="t001")
        assert (assignment.status, assignment.time_on_task_ms) == ("submitted", 12_345)
        assert Assignment.objects.get(transcript__external_id="t002").status == "held"

    def test_without_javascript_it_redirects_and_times_from_when_the_page_was_served(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        url = start(client_of, campaign)
        shown_at = int(time.time() * 1000) - 5_000
        response = client_of.post(url, answers(time_on_task_ms="", shown_at=shown_at))
        assert response.status_code == 302
        assert response["Location"] == reverse("annotation:work", args=[campaign.pk])
        assert 5_000 <= Assignment.objects.get().time_on_task_ms < 60_000

    def test_a_missing_answer_is_pointed_out_and_nothing_is_stored(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        url = start(client_of, campaign)
        data = answers()
        del data["answer_manner"]
        response = client_of.post(url, data, headers=HTMX)
        assert response.status_code == 200
        html = response.content.decode()
        assert '<fieldset class="question has-error" id="q-manner"' in html
        assert "Choose an answer." in html
        assert not Response.objects.exists()
        assert "HX-Push-Url" not in response

    def test_an_answer_off_the_scale_is_refused(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        url = start(client_of, campaign)
        response = client_of.post(url, answers(answer_manner=9))
        assert "Select a valid choice" in response.content.decode()
        assert not Response.objects.exists()

    def test_a_negative_time_on_task_is_refused(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        url = start(client_of, campaign)
        response = client_of.post(url, answers(time_on_task_ms=-1))
        assert "greater than or equal to 0" in response.content.decode()
        assert not Response.objects.exists()

    def test_a_huge_time_on_task_is_capped(self, client_of: Client, campaign: Campaign) -> None:
        client_of.post(start(client_of, campaign), answers(time_on_task_ms=10**9))
        assert Assignment.objects.get().time_on_task_ms == queue.MAX_TIME_ON_TASK_MS

    def test_skipping_loads_the_next_item(self, client_of: Client, campaign: Campaign) -> None:
        start(client_of, campaign)
        first = Transcript.objects.get(external_id="t001")
        response = client_of.post(
            reverse("annotation:skip", args=[campaign.pk, first.pk]), headers=HTMX
        )
        assert response["HX-Push-Url"] == item_url(campaign, "t002")
        assert Assignment.objects.get(transcript=first).status == Assignment.Status.SKIPPED

    def test_the_end_says_which_skipped_items_can_be_taken_up(
        self, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(items=1)
        start(client_of, campaign)
        only = campaign.transcripts.get()
        client_of.post(reverse("annotation:skip", args=[campaign.pk, only.pk]))
        assert Assignment.objects.get(transcript=only).status == Assignment.Status.SKIPPED
        page = client_of.get(reverse("annotation:work", args=[campaign.pk])).content.decode()
        assert "You skipped 1 item; you can take it up again." in page
        assert reverse("annotation:mine", args=[campaign.pk]) + "#skipped" in page

    def test_the_last_submission_shows_the_end(
        self, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(items=1)
        response = client_of.post(start(client_of, campaign), answers(), headers=HTMX)
        assert response["HX-Push-Url"] == reverse("annotation:work", args=[campaign.pk])
        assert "Nothing is waiting for you" in response.content.decode()


class TestRevising:
    def test_an_annotator_revises_a_submitted_item(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        url = start(client_of, campaign)
        client_of.post(url, answers(value=2))
        mine = client_of.get(reverse("annotation:mine", args=[campaign.pk])).content.decode()
        assert f'href="{url}"' in mine
        # The time spent (12,345 ms) reads in the reader's language.
        client_of.cookies["django_language"] = "zh-hans"
        chinese = client_of.get(reverse("annotation:mine", args=[campaign.pk])).content.decode()
        assert "<td>12 秒</td>" in chinese
        client_of.cookies["django_language"] = "en"
        html = client_of.get(url).content.decode()
        assert 'id="id_answer_manner_2" value="2" data-key="2" required checked' in html
        assert "Save changes" in html and "skip-form" not in html
        response = client_of.post(url, answers(value=5, time_on_task_ms=1_000))
        assert response.status_code == 302
        assert response["Location"] == reverse("annotation:mine", args=[campaign.pk])
        assert set(Response.objects.values_list("value", flat=True)) == {5, 1}
        assert Assignment.objects.get(transcript__external_id="t001").time_on_task_ms == 13_345

    def test_a_closed_campaign_keeps_the_answers(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        url = start(client_of, campaign)
        client_of.post(url, answers(value=2))
        Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.CLOSED)
        client_of.post(url, answers(value=5))
        assert set(Response.objects.values_list("value", flat=True)) == {2, 1}


class TestPairwise:
    def test_sides_follow_the_assignment_and_answers_are_stored_in_the_items_terms(
        self, client_of: Client, ann: User, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(rows=[pairwise("p1")])
        url = start(client_of, campaign)
        Assignment.objects.filter(annotator=ann).update(swapped=True)
        html = client_of.get(url).content.decode()
        assert html.index("RESPONSE-B-TEXT") < html.index("RESPONSE-A-TEXT")
        assert "SYSTEM-A-NAME" not in html and "SYSTEM-B-NAME" not in html
        # The annotator prefers what they saw on the left, labelled A: the item's response b.
        client_of.post(url, {"answer_better_response": 0, "time_on_task_ms": 10})
        assert Response.objects.get().value == 1

    def test_unswapped_sides_store_the_answer_as_shown(
        self, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(rows=[pairwise("p1")])
        url = start(client_of, campaign)
        Assignment.objects.update(swapped=False)
        html = client_of.get(url).content.decode()
        assert html.index("RESPONSE-A-TEXT") < html.index("RESPONSE-B-TEXT")
        client_of.post(url, {"answer_better_response": 0, "time_on_task_ms": 10})
        assert Response.objects.get().value == 0
