"""The intent task's pages in the Chinese interface hold no English sentence and no English
word of the interface."""

from __future__ import annotations

from io import StringIO

import pytest
from django.test import Client
from django.urls import reverse

from intent import demo
from intent.models import Submission, Team, Track
from tests.chinese_text import chinese_page, english_runs, english_words

pytestmark = pytest.mark.django_db


@pytest.fixture
def track() -> Track:
    demo.seed(StringIO())
    return Track.objects.get()


def intent_data(track: Track) -> list[str]:
    data = [track.name, track.description, *map(str, track.labels)]
    data += [team.name for team in Team.objects.all()]
    data += [submission.filename for submission in Submission.objects.all()]
    return data


@pytest.mark.parametrize("page", ["intent:track", "intent:leaderboard"])
def test_the_track_pages_have_no_english_sentence_in_chinese(
    track: Track, coordinator_client: Client, page: str
) -> None:
    html = chinese_page(coordinator_client, reverse(page, args=[track.pk]))
    assert english_runs(html, intent_data(track)) == []
    assert english_words(html, intent_data(track)) == []


def test_a_submission_page_has_no_english_sentence_in_chinese(
    track: Track, coordinator_client: Client
) -> None:
    submission = Submission.objects.filter(team__track=track).first()
    assert submission is not None
    html = chinese_page(coordinator_client, reverse("intent:submission", args=[submission.pk]))
    assert english_runs(html, intent_data(track)) == []
    assert english_words(html, intent_data(track)) == []
