"""What a team may learn and when it may submit: no gold labels, no late or surplus submissions.

A crafted file that gives each utterance its own probe label reads one gold label per probe
from a per-class breakdown; teams therefore see only the figures of the whole part. A closed
track takes nothing more, and the daily quota holds against concurrent submits.
"""

from __future__ import annotations

import io
import json
import threading
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import translation
from openpyxl import load_workbook

from evalsite import roles
from intent import datasets, submissions
from intent.models import Submission, Team, Track
from tests.conftest import logged_in, make_user
from tests.intent.conftest import LABELS, TEST, predictions_csv


@pytest.fixture(autouse=True)
def english() -> object:
    with translation.override("en"):
        yield


def probe_csv() -> str:
    """Utterance i gets label i mod 3: the probe's answer is read from the confusion matrix."""
    return "id,label\n" + "".join(f"{i},{LABELS[i % 3]}\n" for i in range(12))


def upload(client: Client, track: Track, text: str, name: str = "p.csv") -> Any:
    data = {"file": SimpleUploadedFile(name, text.encode("utf-8"))}
    return client.post(reverse("intent:submit", args=[track.pk]), data, follow=True)


def test_a_team_sees_no_per_class_breakdown_on_its_page(participant: User, team: Team) -> None:
    response = upload(logged_in(participant), team.track, probe_csv())
    page = response.content.decode()
    assert 'id="official-f"' in page
    assert 'id="per-class"' not in page
    assert 'id="confusion"' not in page
    assert 'id="no-breakdown"' in page


def test_a_teams_files_hold_only_the_figures_of_the_whole_part(
    participant: User, team: Team
) -> None:
    upload(logged_in(participant), team.track, probe_csv())
    submission = Submission.objects.get()
    client = logged_in(participant)
    xlsx = client.get(reverse("intent:submission_xlsx", args=[submission.pk]))
    workbook = load_workbook(io.BytesIO(xlsx.content))
    assert workbook.sheetnames == ["About", "Summary"]
    # The glossary names only the columns the team's file holds, never a class.
    about = {cell for row in workbook["About"].iter_rows(values_only=True) for cell in row}
    assert not about & set(LABELS)
    rows = list(workbook["Summary"].iter_rows(values_only=True))
    assert rows[0] == ("measure", "value")
    assert {row[0] for row in rows[1:]} >= {"official_f", "accuracy"}
    assert not {row[0] for row in rows[1:]} & set(LABELS)
    csv_text = client.get(reverse("intent:submission_csv", args=[submission.pk])).content
    lines = csv_text.decode("utf-8-sig").splitlines()
    assert lines[0] == "measure,value"
    assert not any(line.split(",")[0] in LABELS for line in lines)


def test_a_coordinator_sees_the_breakdown_of_any_submission(
    participant: User, team: Team, coordinator: User
) -> None:
    upload(logged_in(participant), team.track, probe_csv())
    submission = Submission.objects.get()
    client = logged_in(coordinator)
    page = client.get(submission.get_absolute_url()).content.decode()
    assert 'id="per-class"' in page and 'id="confusion"' in page
    xlsx = client.get(reverse("intent:submission_xlsx", args=[submission.pk]))
    assert load_workbook(io.BytesIO(xlsx.content)).sheetnames == [
        "About",
        "Summary",
        "Per class",
        "Confusion",
    ]


def test_a_closed_track_takes_no_file(participant: User, team: Team, coordinator: User) -> None:
    logged_in(coordinator).post(reverse("intent:phase", args=[team.track.pk]), {"phase": "closed"})
    response = upload(logged_in(participant), team.track, predictions_csv(12))
    assert "The track is closed and takes no more submissions." in response.content.decode()
    assert not Submission.objects.exists()
    track_page = logged_in(participant).get(team.track.get_absolute_url()).content.decode()
    assert 'id="track-closed"' in track_page
    assert "Submit predictions" not in track_page


def test_a_closed_track_starts_no_endpoint_run(
    participant: User, team: Team, coordinator: User
) -> None:
    logged_in(coordinator).post(reverse("intent:phase", args=[team.track.pk]), {"phase": "closed"})
    response = logged_in(participant).post(
        reverse("intent:endpoint", args=[team.track.pk]),
        {"endpoint_url": "http://127.0.0.1:9/classify", "run": "1"},
        follow=True,
    )
    assert "The track is closed and takes no more submissions." in response.content.decode()
    assert not Submission.objects.exists()


def test_a_perfect_file_after_closing_does_not_reach_the_final_leaderboard(
    participant: User, team: Team, rival: User, rival_team: Team, coordinator: User
) -> None:
    upload(logged_in(rival), team.track, predictions_csv(6))
    logged_in(coordinator).post(reverse("intent:phase", args=[team.track.pk]), {"phase": "closed"})
    upload(logged_in(participant), team.track, predictions_csv(12))
    page = logged_in(rival).get(reverse("intent:leaderboard", args=[team.track.pk]))
    text = page.content.decode()
    assert "Beta" in text and "Alpha" not in text


def test_a_closed_track_refuses_in_chinese(participant: User, team: Team) -> None:
    Track.objects.filter(pk=team.track.pk).update(phase=Track.Phase.CLOSED)
    with translation.override("zh-hans"):
        message = str(submissions.TrackClosed())
    assert message == "赛道已结束，不再接受提交。"


@pytest.mark.django_db(transaction=True)
def test_concurrent_submits_never_pass_the_daily_quota() -> None:
    track = Track.objects.create(name="Race", labels=LABELS, daily_quota=4)
    datasets.import_split(track, "test", json.dumps(TEST, ensure_ascii=False), "test.json")
    person = make_user("racer", roles.PARTICIPANTS)
    team = Team.objects.create(track=track, name="Racers")
    team.members.add(person)
    Submission.objects.create(team=team, submitted_by=person, predictions={})
    start = threading.Barrier(12)
    outcomes: list[str] = []

    def attempt() -> None:
        try:
            start.wait()
            submissions.submit_file(Team.objects.get(pk=team.pk), person, probe_csv(), "p.csv")
            outcomes.append("accepted")
        except submissions.QuotaExceeded:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("accepted") == 3
    assert outcomes.count("refused") == 9
    assert Submission.objects.filter(team=team).count() == 4


def test_a_deeply_nested_file_is_refused_with_its_line_not_a_500(
    participant: User, team: Team
) -> None:
    nested = '{"resultsList": [' + "[" * 100_000 + "]" * 100_000 + "]}"
    response = upload(logged_in(participant), team.track, nested, name="p.json")
    assert response.status_code == 200
    assert "p.json:1: the JSON is nested too deeply to read" in response.content.decode()
    assert not Submission.objects.exists()
