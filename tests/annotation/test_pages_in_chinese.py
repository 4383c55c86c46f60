"""The coordinator's annotation pages in the Chinese interface hold no English sentence: the
report with its notes and verdicts, the CONCEPT scorecard, the LLM evaluator's form, the judge
alignment page and the report's job page."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from annotation.concept.measures import COORDINATED_ABILITIES, RUBRIC_DIMENSIONS
from annotation.models import Campaign
from annotation.report import cache
from evalsite.models import Job
from tests.annotation.test_report import RESAMPLES, build_small
from tests.chinese_text import chinese_page, english_runs, english_words

pytestmark = pytest.mark.django_db


def campaign_data(campaign: Campaign) -> list[str]:
    """What the campaign's own data put on its pages: names, texts, codes (the metric keys)."""
    data = [campaign.name, "gpt", *COORDINATED_ABILITIES, *RUBRIC_DIMENSIONS]
    for transcript in campaign.transcripts.all():
        data += [transcript.external_id, transcript.system, transcript.persona_text]
        data += [str(turn.get("text", "")) for turn in transcript.turns or []]
    return data


@pytest.fixture
def reported(campaign_factory: Callable[..., Campaign]) -> Campaign:
    campaign = build_small(campaign_factory)
    cache.run_report(campaign, resamples=RESAMPLES)
    return campaign


@pytest.mark.parametrize(
    "page",
    [
        "annotation_report:page",
        "concept:scorecard",
        "annotation_llm:campaign",
        "annotation_alignment:page",
    ],
)
def test_the_page_has_no_english_sentence_in_chinese(
    reported: Campaign, coordinator_client: Client, page: str
) -> None:
    html = chinese_page(coordinator_client, reverse(page, args=[reported.pk]))
    assert english_runs(html, campaign_data(reported)) == []
    assert english_words(html, campaign_data(reported)) == []


def test_the_reports_job_page_has_no_english_sentence_in_chinese(
    reported: Campaign, coordinator_client: Client
) -> None:
    job = Job.objects.filter(kind=cache.REPORT_KIND).latest("pk")
    html = chinese_page(coordinator_client, reverse("job_detail", args=[job.pk]))
    assert english_runs(html, campaign_data(reported)) == []
    assert english_words(html, campaign_data(reported)) == []


def test_the_report_shows_its_notes_in_chinese(
    reported: Campaign, coordinator_client: Client
) -> None:
    html = chinese_page(coordinator_client, reverse("annotation_report:page", args=[reported.pk]))
    # Four dialogues are too few for an interval: the engine's note, translated.
    assert "条目太少，无法给出区间" in html
    assert "too few items" not in html
