from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from annotation.models import Campaign, LLMScore, Rubric, Transcript
from tests.annotation.conftest import CONCEPT4CRS, CONCEPT4CRS_DUPLICATES, dialogue
from tests.annotation.test_queue_processes import database_url

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue()


def jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    return path


class TestImportTranscripts:
    def test_it_creates_the_campaign_with_the_default_rubric(self, tmp_path: Path) -> None:
        path = jsonl(tmp_path / "t.jsonl", [dialogue("a"), dialogue("b")])
        output = run("import_transcripts", str(path), "--campaign", "CLI")
        assert "Imported 2 transcripts into 'CLI': 2 new, 0 updated" in output
        assert Campaign.objects.get(name="CLI").rubric.key == "concept"
        output = run("import_transcripts", str(path), "--campaign", "CLI")
        assert "0 new, 2 updated" in output and Transcript.objects.count() == 2

    def test_it_sets_the_item_order(self, tmp_path: Path) -> None:
        path = jsonl(tmp_path / "t.jsonl", [dialogue("a")])
        run("import_transcripts", str(path), "--campaign", "Ordered")
        assert Campaign.objects.get(name="Ordered").item_order == Campaign.ItemOrder.SHUFFLED
        run("import_transcripts", str(path), "--campaign", "Ordered", "--item-order", "import")
        assert Campaign.objects.get(name="Ordered").item_order == Campaign.ItemOrder.IMPORT

    def test_a_bad_file_fails_with_its_line_and_field(self, tmp_path: Path) -> None:
        bad = dialogue("b", turns=[{"role": "user", "text": 5}])
        path = jsonl(tmp_path / "t.jsonl", [dialogue("a"), bad])
        with pytest.raises(CommandError) as failure:
            run("import_transcripts", str(path), "--campaign", "CLI", "--format", "jsonl")
        assert "t.jsonl line 2: turns[0].text must be a string" in str(failure.value)
        assert not Transcript.objects.exists() and not Campaign.objects.exists()

    def test_it_reads_a_concept4crs_folder_with_personas(self) -> None:
        run(
            "import_transcripts",
            str(CONCEPT4CRS),
            "--campaign",
            "C4",
            "--personas",
            str(CONCEPT4CRS / "personas.csv"),
        )
        assert Transcript.objects.filter(persona_emotion="Delight").count() == 1

    def test_it_reports_duplicated_cells_and_skips_them_on_request(self) -> None:
        folder = str(CONCEPT4CRS_DUPLICATES)
        output = run("import_transcripts", folder, "--campaign", "All")
        assert "Imported 6 transcripts" in output
        assert "2 transcript(s) duplicate a persona x attribute cell; --dedupe-cells" in output
        output = run("import_transcripts", folder, "--campaign", "Deduped", "--dedupe-cells")
        assert "Imported 4 transcripts" in output
        assert "Skipped 2 file(s) that duplicate a persona x attribute cell" in output
        assert Transcript.objects.filter(campaign__name="Deduped").count() == 4

    def test_an_unknown_suffix_asks_for_the_format(self, tmp_path: Path) -> None:
        path = tmp_path / "t.txt"
        path.write_text("")
        with pytest.raises(CommandError, match="pass --format"):
            run("import_transcripts", str(path), "--campaign", "CLI")


class TestImportLlmScores:
    def test_it_imports_and_a_bad_score_fails_the_whole_file(
        self, tmp_path: Path, campaign: Campaign
    ) -> None:
        good = jsonl(
            tmp_path / "s.jsonl",
            [{"transcript_id": "t001", "dimension": "manner", "score": 4}],
        )
        output = run(
            "import_llm_scores", str(good), "--campaign", campaign.name, "--evaluator", "gpt"
        )
        assert "Imported 1 scores of 'gpt'" in output
        bad = jsonl(
            tmp_path / "s2.jsonl",
            [
                {"transcript_id": "t002", "dimension": "manner", "score": 4},
                {"transcript_id": "t003", "dimension": "manner", "score": 0},
            ],
        )
        with pytest.raises(CommandError, match=re.escape("s2.jsonl line 2: score 0 is outside")):
            run("import_llm_scores", str(bad), "--campaign", campaign.name, "--evaluator", "gpt")
        assert LLMScore.objects.count() == 1


class TestLoadRubric:
    def test_it_loads_the_concept_rubric_by_default(self) -> None:
        assert "Loaded rubric concept v1 with 10 dimensions." in run("load_rubric")
        assert "Updated rubric concept v1" in run("load_rubric")
        assert Rubric.objects.count() == 1

    def test_a_bad_file_names_its_problem(self, tmp_path: Path) -> None:
        path = tmp_path / "r.json"
        path.write_text('{"key": "x", "dimensions": []}')
        with pytest.raises(CommandError, match="dimensions must be a non-empty list"):
            run("load_rubric", str(path))


@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_a_failed_import_exits_non_zero(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"id": "a", "turns": [{"role": "narrator", "text": "Hi"}]}\n')
    result = subprocess.run(
        [sys.executable, "manage.py", "import_transcripts", str(path), "--campaign", "X"],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DATABASE_URL": database_url(), "DEBUG": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "t.jsonl line 1: turns[0].role must be 'user' or 'system'" in result.stderr
    assert not Campaign.objects.exists()
