from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from evalsite import roles
from intent import datasets
from intent.models import Team, Track
from tests.conftest import make_user

LABELS = ["weather", "chat", "music"]
# 12 test utterances, 4 of each class.
TEST = {str(i): {"query": f"问题{i}", "label": LABELS[i % 3]} for i in range(12)}


@pytest.fixture
def track(db: None) -> Track:
    track = Track.objects.create(name="Intent demo", labels=LABELS, daily_quota=3)
    datasets.import_split(track, "test", json.dumps(TEST, ensure_ascii=False), "test.json")
    return track


@pytest.fixture
def participant(db: None) -> User:
    return make_user("pia", roles.PARTICIPANTS)


@pytest.fixture
def rival(db: None) -> User:
    return make_user("rex", roles.PARTICIPANTS)


@pytest.fixture
def team(track: Track, participant: User) -> Team:
    team = Team.objects.create(track=track, name="Alpha")
    team.members.add(participant)
    return team


@pytest.fixture
def rival_team(track: Track, rival: User) -> Team:
    team = Team.objects.create(track=track, name="Beta")
    team.members.add(rival)
    return team


def predictions_csv(right: int) -> str:
    """The first ``right`` test utterances labelled correctly, the rest as the next class."""
    lines = ["id,label"]
    for i in range(12):
        label = LABELS[i % 3] if i < right else LABELS[(i + 1) % 3]
        lines.append(f"{i},{label}")
    return "\n".join(lines) + "\n"
