from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

import openpyxl
import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evalsite import roles
from liveeval import assignment, campaigns
from liveeval.booking.store import build_world
from liveeval.booking.timetable import world_dates
from liveeval.booking.world import SessionWorld
from liveeval.models import Campaign, ChatSession, DialogueSystem, Message, Rating, SystemAlias
from tests.conftest import logged_in, make_user
from tests.liveeval.conftest import TODAY, judged_session, make_campaign, make_system, make_task

pytestmark = pytest.mark.django_db

VALID_RATING = {
    "completed": "True",
    "satisfaction": "1",
    "fluency": "0",
    "guidance": "1",
    "comment": "fine",
}


@pytest.fixture
def systems() -> list[DialogueSystem]:
    return [
        make_system("reference", "ref-x", "System A", "Hidden Alpha"),
        make_system("baseline", "base-x", "System K", "Hidden Beta"),
    ]


def ended_session(judge: User, system: DialogueSystem) -> ChatSession:
    session = judged_session(judge, system, make_campaign(), task=make_task())
    Message.objects.create(session=session, position=0, role="user", text="你好")
    Message.objects.create(session=session, position=1, role="system", text="您好")
    session.end(ChatSession.EndReason.USER)
    return session


def make_open_campaign(
    systems: list[DialogueSystem], judges: list[User], *, k: int = 2, n_tasks: int = 2
) -> Campaign:
    campaign = Campaign.objects.create(
        name="Plan check", today=TODAY, judgements_per_pair=k, max_turns=20
    )
    campaign.systems.set(systems)
    campaign.tasks.set([make_task(f"task-{n}") for n in range(n_tasks)])
    campaign.judges.set(judges)
    campaigns.open_campaign(campaign)
    return campaign


class TestAccess:
    def test_every_page_enforces_its_role(self, judge: User, systems: list[DialogueSystem]) -> None:
        session = ended_session(judge, systems[0])
        campaign = session.campaign
        assert campaign is not None
        pages: list[tuple[str, dict[str, Any], str]] = [
            ("liveeval:campaign_list", {}, roles.COORDINATORS),
            ("liveeval:campaign_new", {}, roles.COORDINATORS),
            ("liveeval:campaign_detail", {"campaign_id": campaign.pk}, roles.COORDINATORS),
            ("liveeval:campaign_edit", {"campaign_id": campaign.pk}, roles.COORDINATORS),
            ("liveeval:leaderboard", {"campaign_id": campaign.pk}, roles.COORDINATORS),
            ("liveeval:session_review", {"session_id": session.pk}, roles.COORDINATORS),
            ("liveeval:sandbox", {}, roles.COORDINATORS),
            (
                "liveeval:campaign_export",
                {"campaign_id": campaign.pk, "table": "sessions", "fmt": "csv"},
                roles.COORDINATORS,
            ),
        ]
        cast = {
            roles.JUDGES: make_user("j2", roles.JUDGES),
            roles.ANNOTATORS: make_user("a2", roles.ANNOTATORS),
            roles.COORDINATORS: make_user("c2", roles.COORDINATORS),
        }
        for name, kwargs, allowed in pages:
            url = reverse(name, kwargs=kwargs)
            assert Client().get(url).status_code == 302, url
            for role, user in cast.items():
                expected = 200 if role == allowed else 403
                assert logged_in(user).get(url).status_code == expected, (url, role)

    def test_only_the_sessions_own_judge_may_open_end_or_rate_it(
        self, judge: User, other_judge: User, coordinator: User, systems: list[DialogueSystem]
    ) -> None:
        session = ended_session(judge, systems[0])
        for intruder in (other_judge, coordinator):
            client = logged_in(intruder)
            assert client.get(reverse("liveeval:chat", args=[session.pk])).status_code == 403
            rate = client.post(reverse("liveeval:rate_session", args=[session.pk]), VALID_RATING)
            assert rate.status_code == 403
            end = client.post(reverse("liveeval:end_session", args=[session.pk]))
            assert end.status_code == 403
        assert not Rating.objects.exists()
        assert Client().get(reverse("liveeval:chat", args=[session.pk])).status_code == 302


class TestJudgeFlow:
    def test_next_opens_the_first_pending_conversation(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        campaign = make_open_campaign(systems, [judge], k=1)
        first = campaign.sessions.get(user=judge, position=0)
        response = judge_client.post(reverse("liveeval:next_session"))
        assert response.status_code == 302
        assert response["Location"] == reverse("liveeval:chat", args=[first.pk])
        first.refresh_from_db()
        assert first.status == ChatSession.Status.OPEN
        # Asking again resumes the same conversation rather than starting another.
        again = judge_client.post(reverse("liveeval:next_session"))
        assert again["Location"] == reverse("liveeval:chat", args=[first.pk])

    def test_an_unrated_conversation_comes_before_a_new_one(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        campaign = make_open_campaign(systems, [judge], k=1)
        first = campaign.sessions.get(user=judge, position=0)
        first.end(ChatSession.EndReason.USER)
        response = judge_client.post(reverse("liveeval:next_session"))
        assert response["Location"] == reverse("liveeval:chat", args=[first.pk])

    def test_the_home_button_says_what_it_opens(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        judge_client.cookies["django_language"] = "en"
        campaign = make_open_campaign(systems, [judge], k=1)

        def button() -> str:
            html = judge_client.get(reverse("home")).content.decode()
            return html.split('id="start-next">')[1].split("<")[0]

        assert button() == "Start next conversation"
        judge_client.post(reverse("liveeval:next_session"))
        assert button() == "Continue the conversation"
        campaign.sessions.get(user=judge, status=ChatSession.Status.OPEN).end(
            ChatSession.EndReason.USER
        )
        assert button() == "Rate the finished conversation"

    def test_nothing_waiting_says_so(self, judge_client: Client) -> None:
        response = judge_client.post(reverse("liveeval:next_session"), follow=True)
        assert "no conversation waiting" in response.content.decode()

    def test_the_chat_page_names_the_system_by_alias_only(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        campaign = make_open_campaign(systems, [judge], k=1)
        judge_client.post(reverse("liveeval:next_session"))
        session = campaign.sessions.get(user=judge, status=ChatSession.Status.OPEN)
        url = reverse("liveeval:chat", args=[session.pk])
        html = judge_client.get(url).content.decode()
        code = SystemAlias.objects.get(campaign=campaign, system=session.system).code
        assert f"System {code}" in html
        secrets = ("Hidden Alpha", "Hidden Beta", "ref-x", "base-x", "reference", "baseline")
        for secret in (session.system.alias, *secrets):
            assert secret not in html, secret
        assert str(session.system_id) not in url.replace(str(session.pk), "")
        assert f'ws-connect="/ws/live/{session.pk}/?lang=en"' in html

    def test_the_task_card_follows_the_dialogue_language_not_the_interface(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        session = judged_session(judge, systems[0], make_campaign(), task=make_task())
        url = reverse("liveeval:chat", args=[session.pk])
        english_interface = judge_client.get(url).content.decode()
        assert "预定明天从北京去上海的机票" in english_interface
        assert "Book a flight from Beijing" not in english_interface
        judge_client.post(reverse("set_language"), {"language": "zh-hans", "next": url})
        assert "预定明天从北京去上海的机票" in judge_client.get(url).content.decode()

    def test_ending_shows_the_rating_form(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        session = judged_session(judge, systems[0], make_campaign(), task=make_task())
        response = judge_client.post(
            reverse("liveeval:end_session", args=[session.pk]), HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 200
        assert 'id="rating-form"' in response.content.decode()
        session.refresh_from_db()
        assert session.status == ChatSession.Status.ENDED
        assert session.end_reason == ChatSession.EndReason.USER

    def test_a_rating_is_stored_and_locked(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        session = ended_session(judge, systems[0])
        url = reverse("liveeval:rate_session", args=[session.pk])
        response = judge_client.post(url, VALID_RATING, HTTP_HX_REQUEST="true")
        assert response.status_code == 200
        assert "locked" in response.content.decode()
        rating = Rating.objects.get(session=session)
        assert (rating.completed, rating.satisfaction, rating.fluency, rating.guidance) == (
            True,
            1,
            0,
            1,
        )
        again = judge_client.post(url, {**VALID_RATING, "satisfaction": "-2"})
        assert again.status_code == 409
        rating.refresh_from_db()
        assert rating.satisfaction == 1

    def test_rating_errors_show_inline(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        session = ended_session(judge, systems[0])
        url = reverse("liveeval:rate_session", args=[session.pk])
        response = judge_client.post(
            url, {**VALID_RATING, "satisfaction": "5", "fluency": ""}, HTTP_HX_REQUEST="true"
        )
        html = response.content.decode()
        assert response.status_code == 200
        assert html.count('class="error"') == 2
        assert 'id="rating-form"' in html
        assert not Rating.objects.exists()

    def test_an_open_conversation_cannot_be_rated(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        session = judged_session(judge, systems[0], make_campaign(), task=make_task())
        response = judge_client.post(
            reverse("liveeval:rate_session", args=[session.pk]), VALID_RATING
        )
        assert response.status_code == 409
        assert not Rating.objects.exists()

    def test_the_home_page_offers_the_next_conversation(
        self, judge: User, judge_client: Client, systems: list[DialogueSystem]
    ) -> None:
        make_open_campaign(systems, [judge], k=1)
        html = judge_client.get(reverse("home")).content.decode()
        assert 'id="start-next"' in html and "4 conversations are waiting" in html


class TestCampaigns:
    def test_the_turn_limit_may_not_exceed_a_task_penalty(
        self, coordinator_client: Client, judge: User, systems: list[DialogueSystem]
    ) -> None:
        task = make_task(penalty=12)
        response = coordinator_client.post(
            reverse("liveeval:campaign_new"),
            {
                "name": "Too long",
                "systems": [s.pk for s in systems],
                "tasks": [task.pk],
                "judges": [judge.pk],
                "judgements_per_pair": 1,
                "max_turns": 20,
                "today": "2026-12-01",
                "lang": "zh",
                "reply_timeout": 10,
                "seed": 1,
            },
        )
        assert response.status_code == 200
        assert "the lowest penalty among the chosen tasks is 12" in response.content.decode()
        assert not Campaign.objects.exists()

    def test_opening_makes_a_plan_that_keeps_every_guarantee(
        self, coordinator_client: Client, systems: list[DialogueSystem]
    ) -> None:
        judges = [make_user(f"judge-{n}", roles.JUDGES) for n in range(4)]
        campaign = Campaign.objects.create(
            name="Open me", today=TODAY, judgements_per_pair=3, max_turns=20
        )
        campaign.systems.set(systems)
        campaign.tasks.set([make_task(f"t{n}") for n in range(3)])
        campaign.judges.set(judges)
        response = coordinator_client.post(reverse("liveeval:campaign_open", args=[campaign.pk]))
        assert response.status_code == 302
        campaign.refresh_from_db()
        assert campaign.status == Campaign.Status.OPEN and campaign.opened_at is not None
        sessions = campaign.sessions.all()
        assert sessions.count() == 3 * 2 * 3
        assert all(s.status == ChatSession.Status.PENDING for s in sessions)
        slots = campaigns.current_slots(campaign)
        problems = assignment.check_plan(
            slots,
            sorted(campaign.tasks.values_list("pk", flat=True)),
            sorted(campaign.systems.values_list("pk", flat=True)),
            sorted(j.pk for j in judges),
            3,
        )
        assert problems == []

    def test_an_impossible_plan_is_explained(
        self, coordinator_client: Client, judge: User, systems: list[DialogueSystem]
    ) -> None:
        campaign = Campaign.objects.create(
            name="Too few", today=TODAY, judgements_per_pair=3, max_turns=20
        )
        campaign.systems.set(systems)
        campaign.tasks.set([make_task()])
        campaign.judges.set([judge])
        response = coordinator_client.post(
            reverse("liveeval:campaign_open", args=[campaign.pk]), follow=True
        )
        assert "needs at least 3 judges" in response.content.decode()
        campaign.refresh_from_db()
        assert campaign.status == Campaign.Status.DRAFT and not campaign.sessions.exists()

    def test_a_leaving_judges_work_goes_to_the_others_and_short_pairs_are_flagged(
        self, coordinator_client: Client, systems: list[DialogueSystem]
    ) -> None:
        judges = [make_user(f"judge-{n}", roles.JUDGES) for n in range(3)]
        campaign = make_open_campaign(systems, judges, k=2)
        leaving = judges[0]
        campaigns.remove_judge(campaign, leaving)
        assert not campaign.sessions.filter(user=leaving).exists()
        slots = campaigns.current_slots(campaign)
        pairs = [(s.task, s.system) for s in slots]
        assert len(pairs) == 2 * 2 * 2
        for pair in set(pairs):
            assert pairs.count(pair) == 2
        assert len({(s.judge, s.task, s.system) for s in slots}) == len(slots)
        # With one judge fewer than K, every pair is short and the coordinator sees it.
        campaigns.remove_judge(campaign, judges[1])
        html = coordinator_client.get(
            reverse("liveeval:campaign_detail", args=[campaign.pk])
        ).content.decode()
        assert 'id="flagged-pairs"' in html
        judge_slots = [(s.task, s.system) for s in campaigns.current_slots(campaign)]
        assert len(judge_slots) == len(set(judge_slots))

    def test_work_already_done_stays_when_a_judge_leaves(
        self, systems: list[DialogueSystem]
    ) -> None:
        judges = [make_user(f"judge-{n}", roles.JUDGES) for n in range(3)]
        campaign = make_open_campaign(systems, judges, k=2)
        done = campaign.sessions.filter(user=judges[0]).order_by("position").first()
        assert done is not None
        Message.objects.create(session=done, position=0, role="user", text="hi")
        done.end(ChatSession.EndReason.USER)
        campaigns.remove_judge(campaign, judges[0])
        done.refresh_from_db()
        assert done.status == ChatSession.Status.ENDED
        assert done.messages.count() == 1

    def test_the_detail_page_shows_progress(
        self, coordinator_client: Client, judge: User, systems: list[DialogueSystem]
    ) -> None:
        campaign = make_open_campaign(systems, [judge], k=1)
        first = campaign.sessions.get(position=0)
        first.end(ChatSession.EndReason.USER)
        Rating.objects.create(session=first, completed=True, satisfaction=1, fluency=1, guidance=1)
        html = coordinator_client.get(
            reverse("liveeval:campaign_detail", args=[campaign.pk])
        ).content.decode()
        assert 'data-done="1" data-in-progress="0" data-pending="3"' in html


@pytest.fixture
def rated_campaign(judge: User, other_judge: User, builtin_systems: dict) -> Campaign:
    """Two judges, two systems, one task; the reference system books, comments need escaping."""
    build_world(world_dates(TODAY, 3), force=True)
    campaign = make_open_campaign(
        list(builtin_systems.values()), [judge, other_judge], k=2, n_tasks=1
    )
    for session in campaign.sessions.select_related("system"):
        Message.objects.create(session=session, position=0, role="user", text="=HYPERLINK(1)")
        Message.objects.create(session=session, position=1, role="system", text="ok")
        if session.system.slug == "reference":
            world = SessionWorld(session)
            offer = world.search_flights("北京", "上海", TODAY + dt.timedelta(days=1))[0]
            world.book("flight", offer.id, "economy")
        session.end(ChatSession.EndReason.USER)
        Rating.objects.create(
            session=session,
            completed=session.system.slug == "reference",
            satisfaction=1 if session.system.slug == "reference" else -1,
            fluency=0,
            guidance=1,
            comment="-1 then +2 @everyone",
        )
    return campaign


class TestResults:
    def test_the_leaderboard_ranks_by_completion(
        self, coordinator_client: Client, rated_campaign: Campaign
    ) -> None:
        html = coordinator_client.get(
            reverse("liveeval:leaderboard", args=[rated_campaign.pk])
        ).content.decode()
        reference_row = html.index('data-system="reference"')
        baseline_row = html.index('data-system="baseline"')
        assert reference_row < baseline_row
        assert 'id="judge-agreement"' in html

    def test_the_agreement_table_names_the_measures_in_the_readers_language(
        self, coordinator_client: Client, rated_campaign: Campaign
    ) -> None:
        coordinator_client.cookies["django_language"] = "zh-hans"
        html = coordinator_client.get(
            reverse("liveeval:leaderboard", args=[rated_campaign.pk])
        ).content.decode()
        table = html[html.index('id="judge-agreement"') :]
        table = table[: table.index("</table>")]
        assert "<td>满意度</td>" in table and "<td>satisfaction</td>" not in table

    def test_the_leaderboard_gives_the_pooled_figures_and_the_most_average_turns(
        self, coordinator_client: Client, rated_campaign: Campaign
    ) -> None:
        response = coordinator_client.get(
            reverse("liveeval:campaign_export", args=[rated_campaign.pk, "leaderboard", "csv"])
        )
        rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
        session = rated_campaign.sessions.select_related("task").first()
        assert session is not None and session.task is not None
        penalty = session.task.turn_penalty
        by_system = {row["system"]: row for row in rows}
        reference = by_system["Reference booking assistant"]
        baseline = by_system["Keyword baseline"]
        # One task, two judges each: both completed on the reference, none on the baseline,
        # whose every session is charged the task's penalty.
        assert (reference["completion_rate"], reference["pooled_completion_rate"]) == ("1.0", "1.0")
        assert reference["judges"] == "2"
        assert float(baseline["avg_turns"]) == float(baseline["pooled_avg_turns"]) == penalty
        assert {row["max_avg_turns"] for row in rows} == {str(float(penalty))}
        html = coordinator_client.get(
            reverse("liveeval:leaderboard", args=[rated_campaign.pk])
        ).content.decode()
        assert f"averages {penalty:.2f} turns" in html

    def test_the_csv_export_escapes_formulas_but_keeps_numbers(
        self, coordinator_client: Client, rated_campaign: Campaign
    ) -> None:
        response = coordinator_client.get(
            reverse("liveeval:campaign_export", args=[rated_campaign.pk, "ratings", "csv"])
        )
        assert response.status_code == 200
        rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
        assert len(rows) == 4
        assert {row["comment"] for row in rows} == {"'-1 then +2 @everyone"}
        assert {row["satisfaction"] for row in rows} == {"1", "-1"}
        messages = coordinator_client.get(
            reverse("liveeval:campaign_export", args=[rated_campaign.pk, "messages", "csv"])
        ).content.decode("utf-8-sig")
        assert "'=HYPERLINK(1)" in messages

    def test_the_workbook_keeps_formulas_as_text(
        self, coordinator_client: Client, rated_campaign: Campaign
    ) -> None:
        response = coordinator_client.get(
            reverse("liveeval:campaign_export", args=[rated_campaign.pk, "all", "xlsx"])
        )
        workbook = openpyxl.load_workbook(io.BytesIO(response.content))
        assert workbook.sheetnames == ["About", "Leaderboard", "Sessions", "Messages", "Ratings"]
        messages = workbook["Messages"]
        texts = [row[4] for row in messages.iter_rows(min_row=2)]
        assert all(cell.data_type == "s" and cell.value == "=HYPERLINK(1)" for cell in texts[::2])
        leaderboard = list(workbook["Leaderboard"].iter_rows(min_row=2, values_only=True))
        assert [row[4] for row in leaderboard] == [
            "Reference booking assistant",
            "Keyword baseline",
        ]
        assert leaderboard[0][7] == 1 and leaderboard[1][7] == 0

    def test_the_review_page_sets_the_judge_beside_the_automatic_check(
        self, coordinator_client: Client, rated_campaign: Campaign
    ) -> None:
        reference = rated_campaign.sessions.filter(system__slug="reference").first()
        baseline = rated_campaign.sessions.filter(system__slug="baseline").first()
        assert reference is not None and baseline is not None
        html = coordinator_client.get(
            reverse("liveeval:session_review", args=[reference.pk])
        ).content.decode()
        assert 'data-goal-met="1"' in html and 'id="disagreement"' not in html
        booking = reference.bookings.first()
        assert booking is not None
        assert f'<span class="price">{booking.price} yuan</span>' in html
        # Messages count from 1, as transcripts do on the annotation pages.
        assert '<span class="meta">#1 · ' in html and '<span class="meta">#0 · ' not in html
        Rating.objects.filter(session=baseline).update(completed=True)
        html = coordinator_client.get(
            reverse("liveeval:session_review", args=[baseline.pk])
        ).content.decode()
        assert 'data-goal-met="0"' in html and 'id="disagreement"' in html


class TestSandbox:
    def test_a_coordinator_tries_a_system_by_its_real_name(
        self, coordinator: User, coordinator_client: Client, systems: list[DialogueSystem]
    ) -> None:
        response = coordinator_client.post(
            reverse("liveeval:sandbox"),
            {"system": systems[0].pk, "lang": "en", "today": "2026-12-01"},
        )
        session = ChatSession.objects.get(kind=ChatSession.Kind.SANDBOX)
        assert response["Location"] == reverse("liveeval:chat", args=[session.pk])
        assert session.user == coordinator and session.campaign is None
        html = coordinator_client.get(response["Location"]).content.decode()
        assert "Hidden Alpha" in html and "never counts" in html
