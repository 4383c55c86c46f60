"""Demo data of the intent track: a track on the synthetic dataset, two teams, a submission each."""

from __future__ import annotations

import json
import random
from typing import TextIO

from django.contrib.auth import get_user_model

from intent import datasets, submissions
from intent.demo_utterances import DemoUtterance, utterances
from intent.labels import SMP_LABELS
from intent.models import Team, Track

DEMO_TRACK = "SMP2018 Task 1 demo (synthetic utterances)"
DEMO_TEAMS = (("Team One", "team1", 0.85), ("Team Two", "team2", 0.7))


def released_json(rows: list[DemoUtterance]) -> str:
    return json.dumps(
        {row.id: {"query": row.query, "label": row.label} for row in rows}, ensure_ascii=False
    )


def noisy_predictions(rows: list[DemoUtterance], accuracy: float, seed: int) -> str:
    generator = random.Random(seed)
    lines = ["id,label"]
    for row in rows:
        right = generator.random() < accuracy
        lines.append(f"{row.id},{row.label if right else generator.choice(SMP_LABELS)}")
    return "\n".join(lines) + "\n"


def seed(stdout: TextIO) -> None:
    if Track.objects.filter(name=DEMO_TRACK).exists():
        return
    track = Track.objects.create(name=DEMO_TRACK, description="SMP2018 ECDT Task 1, 31 classes.")
    test = utterances(8, seed=3, start=10000)
    for split, rows in (
        ("train", utterances(6, seed=1)),
        ("dev", utterances(3, seed=2, start=5000)),
        ("test", test),
    ):
        datasets.import_split(track, split, released_json(rows), f"{split}.json")
    users = get_user_model().objects
    for position, (name, username, accuracy) in enumerate(DEMO_TEAMS):
        team = Team.objects.create(track=track, name=name)
        member = users.filter(username=username).first()
        if member is not None:
            team.members.add(member)
        predictions = noisy_predictions(test, accuracy, seed=position)
        submissions.submit_file(team, member, predictions, f"{username}.csv")
    stdout.write(f"Intent track: {DEMO_TRACK} with {len(test)} test utterances.\n")
