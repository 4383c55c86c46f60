"""The coordinator's live pages in the Chinese interface hold no English sentence and no English
word of the interface: the leaderboard with its notes, the simulated judges' form and the
campaign's pages, its form among them."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from liveeval.models import Campaign, DialogueSystem, TaskCard
from tests.chinese_text import chinese_page, english_runs, english_words
from tests.liveeval.test_views import rated_campaign

pytestmark = pytest.mark.django_db

__all__ = ["rated_campaign"]


def live_data(campaign: Campaign) -> list[str]:
    """What the campaign's own data put on its pages: names, aliases, task cards."""
    data = [campaign.name, *campaign.judges.values_list("username", flat=True)]
    for system in DialogueSystem.objects.all():
        data += [system.name, system.alias, system.slug, system.description]
    for card in TaskCard.objects.all():
        data += [card.key, card.title_en, card.description_en]
    return data


@pytest.mark.parametrize(
    "page",
    [
        "liveeval:leaderboard",
        "simulation:campaign",
        "liveeval:campaign_detail",
        "liveeval:campaign_edit",
        "liveeval:campaign_new",
    ],
)
def test_the_page_has_no_english_sentence_or_word_in_chinese(
    rated_campaign: Campaign, coordinator_client: Client, page: str
) -> None:
    args = [] if page == "liveeval:campaign_new" else [rated_campaign.pk]
    html = chinese_page(coordinator_client, reverse(page, args=args))
    assert english_runs(html, live_data(rated_campaign)) == []
    assert english_words(html, live_data(rated_campaign)) == []


@pytest.mark.parametrize("page", ["liveeval:campaign_edit", "liveeval:campaign_new"])
def test_the_campaign_forms_checkbox_groups_are_named_fieldsets(
    rated_campaign: Campaign, coordinator_client: Client, page: str
) -> None:
    args = [] if page == "liveeval:campaign_new" else [rated_campaign.pk]
    html = chinese_page(coordinator_client, reverse(page, args=args))
    assert 'for=""' not in html
    for name in ("系统", "任务卡", "评测员"):
        assert f"<legend>{name}</legend>" in html


def test_the_leaderboards_export_labels_use_chinese_punctuation(
    rated_campaign: Campaign, coordinator_client: Client
) -> None:
    url = reverse("liveeval:leaderboard", args=[rated_campaign.pk])
    html = chinese_page(coordinator_client, url)
    assert "会话：" in html and "对话语言：" in html
    assert "Sessions" not in html
    # The agreement notes, built by the statistics, are translated too.
    assert "无置信区间：条目太少，无法给出区间" in html


def test_the_review_pages_goal_explanation_reads_in_chinese(
    rated_campaign: Campaign, coordinator_client: Client
) -> None:
    baseline = rated_campaign.sessions.filter(system__slug="baseline").first()
    assert baseline is not None and baseline.task is not None
    html = chinese_page(coordinator_client, reverse("liveeval:session_review", args=[baseline.pk]))
    data = [*live_data(rated_campaign), baseline.task.title_zh, baseline.task.description_zh]
    assert english_runs(html, data) == []
    assert "✗ " in html and "没有" in html


def test_the_review_pages_bookings_name_their_kind_in_chinese(
    rated_campaign: Campaign, coordinator_client: Client
) -> None:
    from liveeval.booking.models import Booking

    session = rated_campaign.sessions.filter(system__slug="baseline").first()
    assert session is not None
    Booking.objects.create(
        session=session, reference="TR-1", domain="train", item_id=1, option="second", price=553
    )
    html = chinese_page(coordinator_client, reverse("liveeval:session_review", args=[session.pk]))
    assert '<span data-domain="train">火车票</span>' in html


def test_the_leaderboards_rating_columns_and_interval_are_named_in_chinese(
    rated_campaign: Campaign, coordinator_client: Client
) -> None:
    html = chinese_page(
        coordinator_client, reverse("liveeval:leaderboard", args=[rated_campaign.pk])
    )
    for title, code in (("平均满意度（−2 到 2）", "Sa"), ("平均流畅度（−1 到 1）", "F")):
        assert f'<abbr title="{title}">{code}</abbr>' in html
    assert '<abbr title="平均引导性（0 到 1）">G</abbr>' in html
    assert '<th scope="col">95% 置信区间</th>' in html and "95% CI" not in html
