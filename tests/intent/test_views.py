"""The intent pages: tracks, uploads, teams, submissions, scores and the leaderboard."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation
from openpyxl import load_workbook
from pytest_django.fixtures import Settings

from intent.evaluation import gold_part
from intent.models import Submission, Team, Track, Utterance
from tests.conftest import logged_in
from tests.intent.conftest import TEST, predictions_csv


@pytest.fixture(autouse=True)
def english() -> object:
    with translation.override("en"):
        yield


def upload(client: Client, url: str, name: str, text: str, **fields: str) -> Any:
    data = {"file": SimpleUploadedFile(name, text.encode("utf-8")), **fields}
    return client.post(url, data, follow=True)


def test_a_coordinator_creates_a_track_with_the_smp_labels_by_default(coordinator: User) -> None:
    response = logged_in(coordinator).post(
        reverse("intent:track_new"),
        {"name": "Task 1", "description": "", "daily_quota": 5, "public_share": 0.5},
    )
    track = Track.objects.get(name="Task 1")
    assert response.status_code == 302
    assert len(track.labels) == 31 and "chat" in track.labels


def test_a_bad_dataset_stores_nothing_and_names_line_and_field(
    coordinator: User, track: Track
) -> None:
    text = "id,query,label\n100,你好,chat\n101,,chat\n102,下雨吗,rain\n"
    response = upload(
        logged_in(coordinator),
        reverse("intent:upload", args=[track.pk]),
        "dev.csv",
        text,
        split="dev",
    )
    page = response.content.decode()
    assert "dev.csv:3: query: is empty" in page
    assert "dev.csv:4: label: rain is not in the label set" in page
    assert not track.utterances.filter(split="dev").exists()


def test_the_test_split_is_cut_into_public_and_private_parts(track: Track) -> None:
    parts = list(track.utterances.values_list("part", flat=True))
    assert parts.count(Utterance.Part.PUBLIC) == 6
    assert parts.count(Utterance.Part.PRIVATE) == 6


def test_a_participant_submits_and_sees_the_score(participant: User, team: Team) -> None:
    client = logged_in(participant)
    response = upload(
        client, reverse("intent:submit", args=[team.track.pk]), "p.csv", predictions_csv(12)
    )
    submission = Submission.objects.get(team=team)
    assert response.redirect_chain[-1][0] == submission.get_absolute_url()
    assert submission.public_f == pytest.approx(1.0)
    page = response.content.decode()
    assert 'id="official-f">1.0000' in page


def test_a_bad_submission_is_refused_with_its_lines(participant: User, team: Team) -> None:
    text = "id,label\n0,weather\n0,chat\n1,joke\n"
    response = upload(
        logged_in(participant), reverse("intent:submit", args=[team.track.pk]), "p.csv", text
    )
    page = response.content.decode()
    assert "p.csv:3: id: 0 repeats line 2" in page
    assert "p.csv:4: label: joke is not in the label set" in page
    assert not Submission.objects.exists()


def test_the_daily_quota_stops_a_team(participant: User, team: Team) -> None:
    client = logged_in(participant)
    url = reverse("intent:submit", args=[team.track.pk])
    for _ in range(3):
        upload(client, url, "p.csv", predictions_csv(6))
    response = upload(client, url, "p.csv", predictions_csv(12))
    assert "used its 3 submissions for today" in response.content.decode()
    assert Submission.objects.filter(team=team).count() == 3


def test_participants_never_see_gold_labels(participant: User, team: Team) -> None:
    client = logged_in(participant)
    body = client.get(reverse("intent:test_inputs", args=[team.track.pk])).json()
    assert body == {uid: {"query": row["query"]} for uid, row in TEST.items()}
    track_page = client.get(team.track.get_absolute_url()).content.decode()
    assert "Upload split" not in track_page


def test_outsiders_and_other_teams_are_refused(
    outsider: User, rival: User, rival_team: Team, participant: User, team: Team
) -> None:
    upload(
        logged_in(participant),
        reverse("intent:submit", args=[team.track.pk]),
        "p.csv",
        predictions_csv(9),
    )
    submission = Submission.objects.get()
    assert logged_in(rival).get(submission.get_absolute_url()).status_code == 403
    assert (
        logged_in(rival).get(reverse("intent:submission_csv", args=[submission.pk])).status_code
        == 403
    )
    assert logged_in(outsider).get(team.track.get_absolute_url()).status_code == 403
    assert (
        logged_in(participant).post(reverse("intent:upload", args=[team.track.pk])).status_code
        == 403
    )


def test_the_leaderboard_ranks_by_official_f_and_marks_inseparable_neighbours(
    participant: User, team: Team, rival: User, rival_team: Team, coordinator: User
) -> None:
    url = reverse("intent:submit", args=[team.track.pk])
    upload(logged_in(participant), url, "a.csv", predictions_csv(12))
    upload(logged_in(rival), url, "b.csv", predictions_csv(11))
    page = (
        logged_in(rival).get(reverse("intent:leaderboard", args=[team.track.pk])).content.decode()
    )
    assert page.index("Alpha") < page.index("Beta")
    # One utterance apart on six: the paired interval of the difference includes 0.
    assert 'class="tied"' in page
    assert "≈" in page


def test_closing_the_track_ranks_on_the_private_part(
    participant: User, team: Team, coordinator: User
) -> None:
    upload(
        logged_in(participant),
        reverse("intent:submit", args=[team.track.pk]),
        "a.csv",
        predictions_csv(12),
    )
    logged_in(coordinator).post(reverse("intent:phase", args=[team.track.pk]), {"phase": "closed"})
    team.track.refresh_from_db()
    assert team.track.phase == Track.Phase.CLOSED
    page = (
        logged_in(participant)
        .get(reverse("intent:leaderboard", args=[team.track.pk]))
        .content.decode()
    )
    assert "Final leaderboard" in page


def test_the_workbook_has_the_confusion_matrix_and_its_native_chart(
    participant: User, team: Team, coordinator: User
) -> None:
    upload(
        logged_in(participant),
        reverse("intent:submit", args=[team.track.pk]),
        "a.csv",
        predictions_csv(6),
    )
    submission = Submission.objects.get()
    response = logged_in(coordinator).get(reverse("intent:submission_xlsx", args=[submission.pk]))
    workbook = load_workbook(io.BytesIO(response.content))
    confusion = workbook["Confusion"]
    rows = list(confusion.iter_rows(values_only=True))
    # The public part is a seeded shuffle of the track's pk, so which classes it holds varies
    # with the database; the matrix has a column for each of those, then the answers outside.
    public = gold_part(team.track, Utterance.Part.PUBLIC)
    assert rows[0] == ("gold", *public.labels, "unanswered")
    assert [row[0] for row in rows[1:]] == list(public.labels)
    assert sum(int(str(cell)) for row in rows[1:] for cell in row[1:]) == len(public.ids)
    right = sum(1 for uid in public.ids if int(uid) < 6)
    assert sum(int(str(row[1 + i])) for i, row in enumerate(rows[1:])) == right
    assert len(confusion._charts) == 1  # type: ignore[attr-defined]
    csv_text = (
        logged_in(coordinator)
        .get(reverse("intent:submission_csv", args=[submission.pk]))
        .content.decode("utf-8-sig")
    )
    assert csv_text.splitlines()[0] == "label,precision,recall,f1,support,predicted"


def test_a_coordinator_adds_a_team_of_participants_only(
    coordinator: User, track: Track, participant: User, judge: User
) -> None:
    client = logged_in(coordinator)
    url = reverse("intent:add_team", args=[track.pk])
    refused = client.post(url, {"name": "Gamma", "members": "pia, jade"})
    assert refused.status_code == 422
    assert "Not participants: jade" in refused.content.decode()
    client.post(url, {"name": "Gamma", "members": "pia"})
    assert list(Team.objects.get(name="Gamma").members.all()) == [participant]


def test_a_dataset_over_the_configured_upload_limit_is_refused(
    coordinator: User, track: Track, settings: Settings
) -> None:
    settings.FORM_UPLOAD_MAX_BYTES = 1024
    rows = "".join(f"{200 + n},你好吗,chat\n" for n in range(200))
    response = upload(
        logged_in(coordinator),
        reverse("intent:upload", args=[track.pk]),
        "dev.csv",
        "id,query,label\n" + rows,
        split="dev",
    )
    assert "an upload may be at most 1 KB" in response.content.decode()
    assert not track.utterances.filter(split="dev").exists()
