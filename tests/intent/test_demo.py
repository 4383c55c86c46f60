"""The demo track: seeded once, scored, and safe to seed again."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from evalsite import roles
from intent.demo import DEMO_TRACK, seed
from intent.demo_utterances import PHRASES, utterances
from intent.labels import GLOSSES, SMP_LABELS
from intent.models import Submission, Track
from tests.conftest import logged_in, make_user


def test_the_synthetic_dataset_covers_every_class_and_is_seeded() -> None:
    assert set(PHRASES) == set(SMP_LABELS) == set(GLOSSES)
    rows = utterances(2, seed=5)
    assert len(rows) == 62
    assert {row.label for row in rows} == set(SMP_LABELS)
    assert rows == utterances(2, seed=5)


@pytest.mark.django_db
def test_the_demo_track_is_seeded_once_with_scored_submissions() -> None:
    member = make_user("team1", roles.PARTICIPANTS)
    seed(io.StringIO())
    seed(io.StringIO())
    track = Track.objects.get(name=DEMO_TRACK)
    assert track.utterances.filter(split="test").count() == 31 * 8
    assert Submission.objects.filter(team__track=track).count() == 2
    assert all(s.public_f is not None and 0.5 < s.public_f < 1 for s in Submission.objects.all())
    page = logged_in(member).get(reverse("home")).content.decode()
    assert DEMO_TRACK in page
    assert User.objects.get(username="team1").intent_teams.get().name == "Team One"
