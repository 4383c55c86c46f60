"""Re-importing annotated transcripts with "keep versions": scores stay with the text they
scored, the new content is a new version to annotate, and reports and exports name the
version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from annotation import queue
from annotation.concept.scorecard import gather_inputs
from annotation.imports.formats import import_transcripts
from annotation.imports.problems import ImportFailed
from annotation.models import Assignment, Campaign, Response, Transcript
from annotation.progress import campaign_figures
from annotation.report.rows import HUMAN_SCORES_HEADER
from annotation.report.scores import long_scores
from annotation.report.workbook import human_score_rows
from evalsite import jobs
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

OLD = [{"role": "user", "text": "hi"}, {"role": "system", "text": "hello"}]
NEW = [{"role": "user", "text": "new words"}]


def write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    return path


def annotated_campaign(tmp_path: Path, annotator: User) -> Campaign:
    """Campaign "Versions" with t1 (submitted by ``annotator``) and t9 (no annotations)."""
    path = write(tmp_path / "first.jsonl", [{"id": "t1", "turns": OLD}, {"id": "t9", "turns": OLD}])
    import_transcripts(path, "Versions", format="jsonl")
    campaign = Campaign.objects.get(name="Versions")
    transcript = campaign.transcripts.get(external_id="t1")
    assignment = Assignment.objects.create(
        campaign=campaign,
        transcript=transcript,
        annotator=annotator,
        status=Assignment.Status.SUBMITTED,
    )
    dimension = campaign.rubric.dimensions.first()
    assert dimension is not None
    Response.objects.create(
        assignment=assignment, transcript=transcript, dimension=dimension, value=3
    )
    return campaign


def reimport(tmp_path: Path, on_annotated: str = "version") -> None:
    path = write(
        tmp_path / "second.jsonl", [{"id": "t1", "turns": NEW}, {"id": "t9", "turns": NEW}]
    )
    result = import_transcripts(path, "Versions", format="jsonl", on_annotated=on_annotated)
    assert (result.versioned, result.updated, result.created) == (1, 1, 0)


def test_keeping_versions_leaves_the_scores_with_the_text_they_scored(
    tmp_path: Path, annotator: User
) -> None:
    campaign = annotated_campaign(tmp_path, annotator)
    position = campaign.transcripts.get(external_id="t1").position
    reimport(tmp_path)
    old, new = campaign.transcripts.filter(external_id="t1").order_by("version")
    assert (old.version, old.turns, old.is_current) == (1, OLD, False)
    assert (new.version, new.turns, new.is_current, new.position) == (2, NEW, True, position)
    assert list(Response.objects.values_list("transcript_id", "value")) == [(old.pk, 3)]
    assert not new.responses.exists()
    updated = campaign.transcripts.get(external_id="t9")
    assert (updated.version, updated.turns) == (1, NEW)
    figures = campaign_figures(campaign, fresh=True)
    assert (figures.items, figures.submitted) == (2, 0), "progress counts current versions"


def test_a_new_version_that_is_annotated_again_gets_the_next_version(
    tmp_path: Path, annotator: User
) -> None:
    campaign = annotated_campaign(tmp_path, annotator)
    reimport(tmp_path)
    other = make_user("second-annotator", "annotators")
    assignment = queue.next_for(other, campaign)
    assert assignment is not None
    version_two = campaign.transcripts.get(external_id="t1", version=2)
    dimension = campaign.rubric.dimensions.first()
    assert dimension is not None
    Response.objects.create(
        assignment=Assignment.objects.create(
            campaign=campaign, transcript=version_two, annotator=make_user("third", "annotators")
        ),
        transcript=version_two,
        dimension=dimension,
        value=1,
    )
    path = write(tmp_path / "third.jsonl", [{"id": "t1", "turns": OLD}])
    import_transcripts(path, "Versions", format="jsonl", on_annotated="version")
    versions = campaign.transcripts.filter(external_id="t1").order_by("version")
    assert [(t.version, t.is_current) for t in versions] == [(1, False), (2, False), (3, True)]


def test_the_queue_hands_out_the_new_version_and_ends_holds_on_the_old(
    tmp_path: Path, annotator: User
) -> None:
    campaign = annotated_campaign(tmp_path, annotator)
    holder = make_user("holder", "annotators")
    old = campaign.transcripts.get(external_id="t1")
    Assignment.objects.create(campaign=campaign, transcript=old, annotator=holder)
    reimport(tmp_path)
    assert Assignment.objects.get(annotator=holder).status == Assignment.Status.EXPIRED
    with pytest.raises(queue.ItemUnavailable):
        queue.submit(holder, old, [], 10)
    given = []
    while (assignment := queue.next_for(annotator, campaign)) is not None:
        given.append((assignment.transcript.external_id, assignment.transcript.version))
        assignment.status = Assignment.Status.SUBMITTED
        assignment.save()
    assert sorted(given) == [("t1", 2), ("t9", 1)]


def test_reports_and_exports_name_the_version_that_was_scored(
    tmp_path: Path, annotator: User
) -> None:
    campaign = annotated_campaign(tmp_path, annotator)
    reimport(tmp_path)
    new = campaign.transcripts.get(external_id="t1", version=2)
    dimension = campaign.rubric.dimensions.first()
    assert dimension is not None
    second = make_user("second-annotator", "annotators")
    Response.objects.create(
        assignment=Assignment.objects.create(
            campaign=campaign,
            transcript=new,
            annotator=second,
            status=Assignment.Status.SUBMITTED,
        ),
        transcript=new,
        dimension=dimension,
        value=5,
    )
    frame = long_scores(campaign)
    assert sorted(zip(frame["item"], frame["score"], strict=True)) == [
        ("t1", 3.0),
        ("t1 (v2)", 5.0),
    ]
    rows = list(human_score_rows(campaign))
    version = HUMAN_SCORES_HEADER.index("version")
    assert sorted((row[0], row[version], row[3]) for row in rows) == [("t1", 1, 3), ("t1", 2, 5)]


def test_the_command_refuses_by_default_and_keeps_versions_when_asked(
    tmp_path: Path, annotator: User
) -> None:
    campaign = annotated_campaign(tmp_path, annotator)
    path = write(tmp_path / "again.jsonl", [{"id": "t1", "turns": NEW}])
    with pytest.raises(CommandError, match="'t1' already has annotations"):
        call_command("import_transcripts", str(path), "--campaign", "Versions")
    assert campaign.transcripts.count() == 2
    call_command(
        "import_transcripts", str(path), "--campaign", "Versions", "--on-annotated", "version"
    )
    assert campaign.transcripts.filter(external_id="t1").count() == 2


def test_the_import_form_offers_the_choice(
    tmp_path: Path, annotator: User, coordinator_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "start", jobs.run)
    campaign = annotated_campaign(tmp_path, annotator)
    page = coordinator_client.get(reverse("annotation:import_transcripts"))
    assert b'name="on_annotated" value="version"' in page.content
    body = (json.dumps({"id": "t1", "turns": NEW}) + "\n").encode()
    for choice, versions in [("refuse", 1), ("version", 2)]:
        (tmp_path / "up.jsonl").write_bytes(body)
        with (tmp_path / "up.jsonl").open("rb") as upload:
            coordinator_client.post(
                reverse("annotation:import_transcripts"),
                {
                    "campaign": campaign.pk,
                    "format": "jsonl",
                    "file": upload,
                    "on_annotated": choice,
                },
            )
        assert campaign.transcripts.filter(external_id="t1").count() == versions


def test_refusing_names_the_rows_and_changes_nothing(tmp_path: Path, annotator: User) -> None:
    annotated_campaign(tmp_path, annotator)
    path = write(tmp_path / "again.jsonl", [{"id": "t9", "turns": NEW}, {"id": "t1", "turns": NEW}])
    with pytest.raises(ImportFailed) as raised:
        import_transcripts(path, "Versions", format="jsonl")
    assert "line 2: transcript 't1' already has annotations" in raised.value.summary
    assert list(Transcript.objects.values_list("turns", flat=True)) == [OLD, OLD]


def test_the_concept_scorecard_counts_each_dialogue_once_as_it_now_stands(
    tmp_path: Path, annotator: User
) -> None:
    campaign = annotated_campaign(tmp_path, annotator)
    reimport(tmp_path)
    inputs = gather_inputs(campaign)
    assert sorted((row["external_id"], row["turns"]) for row in inputs.rows) == [
        ("t1", NEW),
        ("t9", NEW),
    ]
    assert inputs.human_scores == {}, "the replaced text's scores do not count for the new one"
