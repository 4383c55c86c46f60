"""Hostile files: every problem named by file, line and field, nothing written."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings

from annotation.imports.formats import import_transcripts
from annotation.imports.llm_scores import import_llm_scores
from annotation.imports.problems import ImportFailed
from annotation.models import Assignment, Campaign, Dimension, LLMScore, Response, Transcript

pytestmark = pytest.mark.django_db

GOOD = {"id": "t1", "turns": [{"role": "user", "text": "hi"}, {"role": "system", "text": "hello"}]}


def failure(path: Path, fmt: str) -> str:
    with pytest.raises(ImportFailed) as raised:
        import_transcripts(path, "Hostile", format=fmt)
    assert not Transcript.objects.exists()
    return raised.value.summary


def test_invalid_utf8_is_named_by_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b"\n" + b'{"id": "t2\xff"}\n')
    assert "bad.jsonl line 2: the line is not valid UTF-8" in failure(path, "jsonl")


def test_deep_nesting_is_named_by_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "deep.jsonl line 2: the JSON is nested too deeply" in failure(path, "jsonl")


@pytest.mark.parametrize(("text", "said"), [("a\\u0000b", "NUL"), ("a\\ud800b", "surrogate")])
def test_nul_and_lone_surrogates_are_named_by_line_and_field(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "nul.jsonl"
    row = json.dumps(GOOD).replace('"hello"', f'"{text}"')
    path.write_text(row + "\n")
    summary = failure(path, "jsonl")
    assert "nul.jsonl line 1: turns[1].text cannot be stored" in summary and said in summary


def test_a_csv_cell_over_the_limit_is_named_by_line(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_text("id,turn,role,text\nt1,1,user,hi\nt1,2,system," + "x" * 140_000 + "\n")
    assert "long.csv line 3: a cell is longer than 131,072 characters" in failure(path, "csv")


def test_a_transcript_over_the_limit_is_skipped_unread(tmp_path: Path, settings: Settings) -> None:
    settings.IMPORT_MAX_TRANSCRIPT_BYTES = 1024
    path = tmp_path / "big.jsonl"
    big = {**GOOD, "id": "t2", "metadata": {"blob": "x" * 5000}}
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(big) + "\n")
    assert "big.jsonl line 2: the line is larger than 1 KB" in failure(path, "jsonl")


def test_a_reimport_never_changes_an_annotated_transcript(tmp_path: Path, annotator: User) -> None:
    path = tmp_path / "first.jsonl"
    other = {**GOOD, "id": "t9"}
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(other) + "\n")
    import_transcripts(path, "Hostile", format="jsonl")
    annotated = Transcript.objects.get(external_id="t1")
    assignment = Assignment.objects.create(
        campaign=annotated.campaign, transcript=annotated, annotator=annotator
    )
    dimension = annotated.campaign.rubric.dimensions.first()
    assert dimension is not None
    Response.objects.create(
        assignment=assignment, transcript=annotated, dimension=dimension, value=1
    )
    changed = [
        json.dumps({**GOOD, "turns": [{"role": "user", "text": "new words"}]}),
        json.dumps({**other, "turns": [{"role": "user", "text": "updated"}]}),
    ]
    path.write_text("\n".join(changed) + "\n")
    with pytest.raises(ImportFailed) as raised:
        import_transcripts(path, "Hostile", format="jsonl")
    assert "line 1: transcript 't1' already has annotations" in raised.value.summary
    annotated.refresh_from_db()
    assert annotated.turns == GOOD["turns"]


def test_csv_cells_that_cannot_be_stored_are_named_by_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "nul.csv"
    path.write_text("id,turn,role,text\nt1,1,user,hi\nt1,2,system,a\x00b\nt2,1,user,ok\n")
    summary = failure(path, "csv")
    assert "nul.csv line 3: text cannot be stored: it contains a NUL character" in summary
    assert "line 4" not in summary


def test_invalid_utf8_in_a_csv_is_named_by_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(b"id,turn,role,text\nt1,1,user,hi\nt1,2,system,a\xed\xa0\x80b\n")
    assert "bad.csv line 3: the line is not valid UTF-8" in failure(path, "csv")


def test_every_zip_member_problem_is_named_by_member(tmp_path: Path) -> None:
    sample = Path(__file__).parents[1] / "annotation" / "data" / "concept4crs"
    dialogue = (sample / "chatgpt" / "redial_eval" / "102_3_profile1_attribute0.json").read_text()
    archive = tmp_path / "hostile.zip"
    members: dict[str, bytes] = {
        "1": dialogue.replace("Hello!", "Hel\\u0000lo").encode(),
        "2": dialogue.replace("Hello!", "Hel\\udc00lo").encode(),
        "3": ("[" * 100_000 + "]" * 100_000).encode(),
        "4": b"\xff\xfe{}",
    }
    with zipfile.ZipFile(archive, "w") as bundle:
        for number, body in members.items():
            bundle.writestr(f"kbrd/redial_eval/{number}_1_profile1_attribute1.json", body)
    summary = failure(archive, "concept4crs")
    folder = "kbrd/redial_eval"
    assert f"{folder}/1_1_profile1_attribute1.json: turns[1].text cannot be stored" in summary
    assert f"{folder}/2_1_profile1_attribute1.json: turns[1].text cannot be stored" in summary
    assert f"{folder}/3_1_profile1_attribute1.json: the JSON is nested too deeply" in summary
    assert f"{folder}/4_1_profile1_attribute1.json: is not valid UTF-8" in summary


@pytest.fixture
def scored_campaign(tmp_path: Path) -> Campaign:
    """The campaign 'Hostile' with the transcript t1, to which LLM scores may be given."""
    path = tmp_path / "transcripts.jsonl"
    path.write_text(json.dumps(GOOD) + "\n")
    import_transcripts(path, "Hostile", format="jsonl")
    return Campaign.objects.get(name="Hostile")


def score_failure(path: Path, campaign: Campaign) -> str:
    with pytest.raises(ImportFailed) as raised:
        import_llm_scores(path, campaign, evaluator="gpt")
    assert not LLMScore.objects.exists()
    return raised.value.summary


def score_line(campaign: Campaign, rationale: str = "fine") -> str:
    dimension = campaign.rubric.dimensions.scored().filter(kind=Dimension.Kind.LIKERT).first()
    assert dimension is not None
    return json.dumps(
        {
            "transcript_id": "t1",
            "dimension": dimension.key,
            "score": dimension.scale_min,
            "rationale": rationale,
        }
    )


def test_good_scores_are_imported(tmp_path: Path, scored_campaign: Campaign) -> None:
    # The hostile files below differ from this one only where they are hostile.
    path = tmp_path / "scores.jsonl"
    path.write_text(score_line(scored_campaign) + "\n")
    assert import_llm_scores(path, scored_campaign, evaluator="gpt").llm_scores == 1


def test_invalid_utf8_in_llm_scores_is_named_by_line(
    tmp_path: Path, scored_campaign: Campaign
) -> None:
    path = tmp_path / "scores.jsonl"
    good = score_line(scored_campaign).encode()
    path.write_bytes(good + b"\n" + good.replace(b"fine", b"fi\xffne") + b"\n")
    assert "scores.jsonl line 2: the line is not valid UTF-8" in score_failure(
        path, scored_campaign
    )


def test_invalid_utf8_in_an_llm_score_csv_is_named_by_line(
    tmp_path: Path, scored_campaign: Campaign
) -> None:
    path = tmp_path / "scores.csv"
    key = json.loads(score_line(scored_campaign))["dimension"]
    header = b"transcript_id,dimension,score,rationale\n"
    path.write_bytes(header + f"t1,{key},1,b".encode() + b"\xed\xa0\x80d\n")
    assert "scores.csv line 2: the line is not valid UTF-8" in score_failure(path, scored_campaign)


def test_deep_nesting_in_llm_scores_is_named_by_line(
    tmp_path: Path, scored_campaign: Campaign
) -> None:
    path = tmp_path / "scores.jsonl"
    path.write_text(score_line(scored_campaign) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "scores.jsonl line 2: the JSON is nested too deeply" in score_failure(
        path, scored_campaign
    )


def test_an_llm_score_csv_cell_over_the_limit_is_named_by_line(
    tmp_path: Path, scored_campaign: Campaign
) -> None:
    path = tmp_path / "scores.csv"
    key = json.loads(score_line(scored_campaign))["dimension"]
    path.write_text(f"transcript_id,dimension,score,rationale\nt1,{key},1," + "x" * 140_000 + "\n")
    assert "scores.csv line 2: a cell is longer than 131,072 characters" in score_failure(
        path, scored_campaign
    )


@pytest.mark.parametrize(("text", "said"), [("a\x00b", "NUL"), ("a\ud800b", "surrogate")])
def test_an_llm_rationale_that_cannot_be_stored_is_named_by_line_and_field(
    tmp_path: Path, scored_campaign: Campaign, text: str, said: str
) -> None:
    path = tmp_path / "scores.jsonl"
    path.write_text(score_line(scored_campaign) + "\n" + score_line(scored_campaign, text) + "\n")
    summary = score_failure(path, scored_campaign)
    assert "scores.jsonl line 2: rationale cannot be stored" in summary and said in summary


def test_an_llm_score_csv_with_nul_is_named_by_line_and_column(
    tmp_path: Path, scored_campaign: Campaign
) -> None:
    path = tmp_path / "scores.csv"
    key = json.loads(score_line(scored_campaign))["dimension"]
    path.write_text(f"transcript_id,dimension,score,rationale\nt1,{key},1,a\x00b\n")
    assert "scores.csv line 2: rationale cannot be stored: it contains a NUL" in score_failure(
        path, scored_campaign
    )


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"Joy---Age group=Adults,1,t,p\nFear---Age group=Te\xffens,2,t,p\n", "line 2: the line"),
        (b"Joy---Age group=Adults,1,t,p\nFear---Age group=Teens,2,t," + b"x" * 140_000, "line 2"),
        (b"Joy---Age group=Adults,1,t,p\nFe\x00ar---Age group=Teens,2,t,p\n", "line 2: the name"),
    ],
    ids=["invalid-utf8", "long-cell", "nul"],
)
def test_a_hostile_personas_file_is_named_by_line(tmp_path: Path, body: bytes, said: str) -> None:
    personas = tmp_path / "personas.csv"
    personas.write_bytes(body)
    sample = Path(__file__).parents[1] / "annotation" / "data" / "concept4crs"
    with pytest.raises(ImportFailed) as raised:
        import_transcripts(sample, "Hostile", format="concept4crs", personas=personas)
    assert f"personas.csv {said}" in raised.value.summary
    assert not Transcript.objects.exists()
