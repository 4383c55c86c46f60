from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from annotation.imports.formats import import_transcripts
from annotation.imports.llm_scores import import_llm_scores
from annotation.imports.problems import ImportFailed
from annotation.imports.result import ImportResult
from annotation.imports.rows import import_rows
from annotation.imports.writer import LLMScoreRow, upsert_llm_scores
from annotation.models import Campaign, LLMScore, Transcript
from tests.annotation.conftest import CONCEPT4CRS, CONCEPT4CRS_DUPLICATES, dialogue, pairwise

pytestmark = pytest.mark.django_db


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text(
        "\n".join(row if isinstance(row, str) else json.dumps(row) for row in rows) + "\n",
        encoding="utf-8",
    )
    return path


def nothing_written() -> bool:
    return not Transcript.objects.exists() and not LLMScore.objects.exists()


class TestJsonl:
    def test_it_imports_dialogues_pairwise_items_scores_and_gold(self, tmp_path: Path) -> None:
        rows = [
            dialogue(
                "t1",
                gold={"manner": 4},
                llm_scores=[
                    {"evaluator": "gpt", "dimension": "relevance", "score": 4.5, "rationale": "ok"}
                ],
                metadata={"source": "unit"},
            ),
            dialogue("t2", outcome={"accepted": False, "accepted_items": [], "turn": None}),
            pairwise("p1"),
        ]
        result = import_transcripts(
            write_jsonl(tmp_path / "transcripts.jsonl", rows), "New", format="jsonl"
        )
        assert (result.transcripts, result.created, result.updated) == (3, 3, 0)
        assert result.llm_scores == 1 and result.campaign_created
        campaign = Campaign.objects.get(name="New")
        assert campaign.rubric.key == "concept"
        first = Transcript.objects.get(external_id="t1")
        assert (first.system, first.dataset, first.lang) == ("kbrd", "redial", "en")
        assert (first.persona_emotion, first.persona_age_group) == ("Curiosity", "Adults")
        assert first.turns[0] == {"role": "user", "text": "Any comedies?", "feelings": "Hopeful."}
        assert first.turns[1]["items"] == ["Airplane! (1980)"]
        assert (first.accepted, first.accepted_items, first.accepted_turn) == (
            True,
            ["Airplane! (1980)"],
            3,
        )
        assert first.gold == {"manner": 4} and first.metadata == {"source": "unit"}
        score = LLMScore.objects.get()
        assert (score.transcript, score.dimension.key, score.evaluator, score.score) == (
            first,
            "relevance",
            "gpt",
            4.5,
        )
        pair = Transcript.objects.get(external_id="p1")
        assert pair.kind == "pairwise" and pair.turns[0]["role"] == "user"
        assert pair.response_a == {
            "system": "SYSTEM-A-NAME",
            "text": "RESPONSE-A-TEXT: Amélie (2001).",
        }
        assert [t.external_id for t in campaign.transcripts.order_by("position")] == [
            "t1",
            "t2",
            "p1",
        ]

    def test_a_bad_line_names_file_line_and_field_and_writes_nothing(self, tmp_path: Path) -> None:
        bad = dialogue("t3")
        bad["turns"][1]["role"] = "bot"
        path = write_jsonl(tmp_path / "transcripts.jsonl", [dialogue("t1"), "", bad])
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(path, "New", format="jsonl")
        assert str(failure.value) == (
            "transcripts.jsonl line 3: turns[1].role must be 'user' or 'system'"
        )
        assert nothing_written()
        assert not Campaign.objects.exists()

    def test_it_reports_every_bad_line(self, tmp_path: Path) -> None:
        out_of_scale = dialogue(
            "t2", llm_scores=[{"evaluator": "gpt", "dimension": "relevance", "score": 7}]
        )
        unknown = dialogue("t3", gold={"charm": 3})
        path = write_jsonl(
            tmp_path / "in.jsonl",
            [
                '{"id": "t1", "turns": [',
                out_of_scale,
                unknown,
                dialogue("t4"),
                dialogue("t4"),
                {"turns": []},
            ],
        )
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(path, "New", format="jsonl")
        assert [str(p) for p in failure.value.problems] == [
            "in.jsonl line 1: not valid JSON (Expecting value, column 24)",
            "in.jsonl line 2: llm_scores[0].score 7 is outside the scale of 'relevance' (1–5)",
            "in.jsonl line 3: gold.charm 'charm' is not a dimension of this campaign's rubric",
            "in.jsonl line 5: id 't4' repeats line 4",
            "in.jsonl line 6: id is required",
        ]
        assert nothing_written()

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"turns": []}, "turns must hold at least one turn"),
            ({"turn": []}, "turn is not a known field"),
            ({"outcome": {"accepted": True, "turn": 9}}, "outcome.turn must be between 1 and 3"),
            ({"preferences": "comedy"}, "preferences must be a list of strings"),
            ({"kind": "triple"}, "kind must be 'dialogue' or 'pairwise'"),
            (
                {"gold": {"better_response": 0}},
                "gold.better_response 'better_response' is not asked about dialogue items",
            ),
        ],
    )
    def test_it_names_the_field_at_fault(
        self, tmp_path: Path, change: dict[str, Any], message: str
    ) -> None:
        path = write_jsonl(tmp_path / "in.jsonl", [dialogue("t1", **change)])
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(path, "New", format="jsonl")
        assert str(failure.value) == f"in.jsonl line 1: {message}"

    def test_a_pairwise_item_needs_both_responses(self, tmp_path: Path) -> None:
        item = pairwise("p1")
        del item["b"]
        path = write_jsonl(tmp_path / "in.jsonl", [item])
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(path, "New", format="jsonl")
        assert str(failure.value) == "in.jsonl line 1: b must be an object"

    def test_reimporting_updates_and_never_duplicates(
        self, tmp_path: Path, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(name="Again")
        rows = [
            dialogue("t1", llm_scores=[{"evaluator": "gpt", "dimension": "manner", "score": 2}]),
            dialogue("t2"),
        ]
        import_transcripts(write_jsonl(tmp_path / "a.jsonl", rows), "Again", format="jsonl")
        first = Transcript.objects.get(external_id="t1")
        Transcript.objects.filter(pk=first.pk).update(active_count=2)
        rows[0]["turns"][0]["text"] = "Any comedies at all?"
        rows[0]["llm_scores"][0]["score"] = 3
        rows.append(dialogue("t3"))
        result = import_transcripts(
            write_jsonl(tmp_path / "b.jsonl", rows), "Again", format="jsonl"
        )
        assert (result.transcripts, result.created, result.updated) == (3, 1, 2)
        assert campaign.transcripts.count() == 3
        again = Transcript.objects.get(external_id="t1")
        assert again.pk == first.pk and again.turns[0]["text"] == "Any comedies at all?"
        assert (again.position, again.active_count) == (first.position, 2)
        assert LLMScore.objects.get().score == 3
        assert Transcript.objects.get(external_id="t3").position > first.position

    def test_it_measures_how_long_the_write_held_the_database(self, tmp_path: Path) -> None:
        path = write_jsonl(tmp_path / "in.jsonl", [dialogue(f"t{n}") for n in range(5)])
        result = import_transcripts(path, "New", format="jsonl")
        assert result.lock_seconds > 0 and result.validate_seconds > 0

    def test_it_reports_progress_to_the_end(self, tmp_path: Path) -> None:
        seen: list[tuple[int, int, str]] = []
        path = write_jsonl(tmp_path / "in.jsonl", [dialogue(f"t{n}") for n in range(3)])
        import_transcripts(
            path, "New", format="jsonl", progress=lambda d, t, m: seen.append((d, t, m))
        )
        assert seen[-2:] == [(3, 6, "Writing 3 transcripts"), (6, 6, "Imported 3 transcripts")]

    def test_an_empty_file_is_an_error(self, tmp_path: Path) -> None:
        path = tmp_path / "empty.jsonl"
        path.write_text("\n")
        with pytest.raises(ImportFailed, match="holds no transcripts"):
            import_transcripts(path, "New", format="jsonl")
        assert not Campaign.objects.exists()


def write_csv(path: Path, text: str) -> Path:
    path.write_text(text.lstrip("\n"), encoding="utf-8")
    return path


CSV_HEADER = ",".join(
    [
        *("id", "turn", "role", "text", "system", "dataset", "lang"),
        *("persona_emotion", "persona_age_group", "preferences", "items", "success"),
        *("feelings", "accepted", "accepted_items", "accepted_turn"),
    ]
)
GOOD_CSV = f"""
{CSV_HEADER}
c1,1,user,"Hi, comedy?",kbrd,redial,en,Boredom,Teens,comedy|parody,,,I am bored.,true,Airplane!,3
c1,2,system,"Try ""Airplane!"",
a parody.",,,,,,,Airplane!,true,,,,
c1,3,user,OK [END],,,,,,,,,,,,
c2,1,user,Anything scary?,unicrs,redial,en,,,,,,,,,
c2,2,system,No idea.,,,,,,,,false,,false,,
"""


class TestCsv:
    def test_it_imports_one_row_per_turn(self, tmp_path: Path) -> None:
        result = import_transcripts(
            write_csv(tmp_path / "turns.csv", GOOD_CSV), "New", format="csv"
        )
        assert (result.transcripts, result.created) == (2, 2)
        first = Transcript.objects.get(external_id="c1")
        assert first.turns == [
            {"role": "user", "text": "Hi, comedy?", "feelings": "I am bored."},
            {
                "role": "system",
                "text": 'Try "Airplane!",\na parody.',
                "items": ["Airplane!"],
                "success": True,
            },
            {"role": "user", "text": "OK [END]"},
        ]
        assert first.preferences == ["comedy", "parody"]
        assert (first.persona_emotion, first.persona_age_group) == ("Boredom", "Teens")
        assert (first.accepted, first.accepted_items, first.accepted_turn) == (
            True,
            ["Airplane!"],
            3,
        )
        second = Transcript.objects.get(external_id="c2")
        assert second.system == "unicrs" and second.accepted is False
        assert second.turns[1] == {"role": "system", "text": "No idea.", "success": False}

    def test_a_bad_row_names_its_line_in_the_file(self, tmp_path: Path) -> None:
        # The quoted text of line 3 spans two lines, so c2's second row is on line 7.
        text = GOOD_CSV.replace("c2,2,system,No idea.", "c2,2,bot,No idea.")
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(write_csv(tmp_path / "turns.csv", text), "New", format="csv")
        assert str(failure.value) == "turns.csv line 7: role must be 'user' or 'system'"
        assert nothing_written() and not Campaign.objects.exists()

    @pytest.mark.parametrize(
        ("old", "new", "message"),
        [
            (
                "c1,3,user",
                "c1,4,user",
                "turns.csv line 5: turn must be 3 (turns are numbered from 1, in order)",
            ),
            (
                "c2,2,system",
                "c1,4,system",
                "turns.csv line 7: id 'c1' continues after other "
                "rows; the rows of a transcript must be contiguous (it began on line 2)",
            ),
            (
                "c1,3,user,OK [END],,",
                "c1,3,user,OK [END],dkbr,",
                "turns.csv line 5: system is "
                "'dkbr' here but 'kbrd' on line 2; a transcript's rows must agree",
            ),
            (
                ",true,Airplane!,3",
                ",maybe,Airplane!,3",
                "turns.csv line 2: accepted must be true or false (or empty)",
            ),
            (
                "Airplane!,true,,,,",
                "Airplane!,yes,,,",
                "turns.csv line 3: has 15 cells; the header has 16",
            ),
        ],
    )
    def test_it_locates_each_kind_of_problem(
        self, tmp_path: Path, old: str, new: str, message: str
    ) -> None:
        assert old in GOOD_CSV
        path = write_csv(tmp_path / "turns.csv", GOOD_CSV.replace(old, new, 1))
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(path, "New", format="csv")
        assert str(failure.value.problems[0]) == message
        assert nothing_written()

    def test_an_unknown_column_is_reported_on_line_1(self, tmp_path: Path) -> None:
        path = write_csv(tmp_path / "turns.csv", "id,turn,role,text,mood\nc1,1,user,Hi,happy\n")
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(path, "New", format="csv")
        assert str(failure.value) == "turns.csv line 1: unknown column 'mood'"


def zipped(folder: Path, target: Path, prefix: str) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                archive.write(file, f"{prefix}/{file.relative_to(folder).as_posix()}")
    return target


class TestConcept4crs:
    def check_imported(self, result: ImportResult) -> None:
        # catalogs/items.json is no dialogue: it is a catalog file, skipped for its name.
        assert (result.transcripts, result.created, result.ignored_files) == (3, 3, 0)
        [catalog] = result.catalogs
        assert catalog.files[0].endswith("catalogs/items.json") and "not a catalog" in (
            catalog.skipped
        )
        plain = Transcript.objects.get(external_id="kbrd/redial_eval/101_2_profile0_attribute1")
        assert (plain.system, plain.dataset, plain.lang) == ("kbrd", "redial_eval", "en")
        assert (plain.persona_emotion, plain.persona_age_group) == ("Curiosity", "Adults")
        assert plain.persona_text.startswith("You are curious")
        assert plain.preferences == ["science fiction", "drama"]
        assert (plain.accepted, plain.accepted_items, plain.accepted_turn) == (False, [], None)
        assert [turn["role"] for turn in plain.turns] == ["user", "system"] * 3
        assert plain.turns[3] == {
            "role": "system",
            "text": "Have you seen Solaris (1972)?",
            "items": ["Solaris (1972)"],
            "entity": ["Solaris (1972)"],
            "rec_success_dialogue": True,
            "rec_success_rec": False,
            "rec_items": [1, 12],
        }
        assert plain.turns[2]["feelings"].endswith("MARKER-FEELINGS-101")
        assert plain.metadata["profile"] == 0 and plain.metadata["seed_rec"] == ["Solaris (1972)"]
        named = Transcript.objects.get(external_id="chatgpt/redial_eval/102_3_profile1_attribute0")
        assert (named.persona_emotion, named.persona_age_group) == ("Boredom", "Teens")
        assert (named.accepted, named.accepted_items, named.accepted_turn) == (
            True,
            ["Airplane! (1980)"],
            5,
        )
        quoted = Transcript.objects.get(
            external_id="chatgpt/opendialkg_eval/201_1_profile2_attribute3"
        )
        assert (quoted.persona_emotion, quoted.accepted_items) == ("Delight", ["Rebecca"])

    def test_it_imports_a_directory_with_personas(self) -> None:
        result = import_transcripts(
            CONCEPT4CRS, "New", format="concept4crs", personas=CONCEPT4CRS / "personas.csv"
        )
        self.check_imported(result)

    def test_it_imports_a_zip_with_a_top_folder(self, tmp_path: Path) -> None:
        archive = zipped(CONCEPT4CRS, tmp_path / "sample.zip", "concept4crs-sample")
        result = import_transcripts(
            archive, "New", format="concept4crs", personas=CONCEPT4CRS / "personas.csv"
        )
        self.check_imported(result)

    def test_without_personas_the_emotion_stays_empty(self) -> None:
        import_transcripts(CONCEPT4CRS, "New", format="concept4crs")
        assert set(Transcript.objects.values_list("persona_emotion", flat=True)) == {""}

    def test_a_bad_file_is_named_by_its_path_and_nothing_is_written(self, tmp_path: Path) -> None:
        folder = shutil.copytree(CONCEPT4CRS, tmp_path / "c4")
        broken = folder / "chatgpt/redial_eval/102_3_profile1_attribute0.json"
        data = json.loads(broken.read_text())
        data["simulator_dialog"]["context"][3]["role"] = "recommender"
        broken.write_text(json.dumps(data))
        (folder / "kbrd/redial_eval/101_2_profile0_attribute1.json").write_text("{not json")
        archive = zipped(folder, tmp_path / "c4.zip", "c4")
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(archive, "New", format="concept4crs")
        messages = [str(p) for p in failure.value.problems]
        assert messages[0] == (
            "c4/chatgpt/redial_eval/102_3_profile1_attribute0.json: "
            "simulator_dialog.context[3].role must be 'user' or 'assistant'"
        )
        assert messages[1].startswith(
            "c4/kbrd/redial_eval/101_2_profile0_attribute1.json: not valid JSON"
        )
        assert nothing_written()

    def test_a_profile_missing_from_the_personas_is_an_error(self, tmp_path: Path) -> None:
        personas = tmp_path / "personas.csv"
        personas.write_text("Curiosity---Age group=Adults,1,t,p\n")
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(CONCEPT4CRS, "New", format="concept4crs", personas=personas)
        assert str(failure.value.problems[0]) == (
            "chatgpt/opendialkg_eval/201_1_profile2_attribute3.json: "
            "profile2 has no persona with id 3"
        )
        assert nothing_written()

    def test_a_malformed_personas_row_names_its_line(self, tmp_path: Path) -> None:
        personas = tmp_path / "personas.csv"
        personas.write_text("Curiosity---Age group=Adults,1,t,p\nBoredom,2,t,p\n")
        with pytest.raises(ImportFailed) as failure:
            import_transcripts(CONCEPT4CRS, "New", format="concept4crs", personas=personas)
        assert str(failure.value) == (
            "personas.csv line 2: the first cell must read 'Emotion---Age group=Group'"
        )

    def test_a_folder_without_dialogues_is_an_error(self, tmp_path: Path) -> None:
        with pytest.raises(ImportFailed, match="holds no Concept4CRS dialogue files"):
            import_transcripts(tmp_path, "New", format="concept4crs")


class TestConcept4CRSDuplicatedCells:
    CELL = "chatgpt/redial_eval/{}_profile1_attribute0"

    def test_it_imports_every_file_and_counts_the_repeats(self) -> None:
        result = import_transcripts(CONCEPT4CRS_DUPLICATES, "New", format="concept4crs")
        # Six files; dialogues 300 and 1000 repeat the cell of 150.
        assert (result.transcripts, result.duplicate_cells, result.duplicates_skipped) == (6, 2, 0)
        assert not any(
            "dropped_duplicates" in metadata
            for metadata in Transcript.objects.values_list("metadata", flat=True)
        )

    def test_it_keeps_the_lowest_dialogue_id_of_each_cell(self, tmp_path: Path) -> None:
        archive = zipped(CONCEPT4CRS_DUPLICATES, tmp_path / "dupes.zip", "dupes")
        result = import_transcripts(archive, "New", format="concept4crs", dedupe_cells=True)
        assert (result.transcripts, result.duplicate_cells, result.duplicates_skipped) == (4, 2, 2)
        assert result.as_dict()["duplicates_skipped"] == 2
        # 150 is kept, though "1000" sorts before it as text; another dataset (301), system
        # (302) or profile (303) is another cell.
        assert sorted(Transcript.objects.values_list("external_id", flat=True)) == [
            "chatgpt/opendialkg_eval/301_1_profile1_attribute0",
            self.CELL.format("150_4"),
            "chatgpt/redial_eval/303_1_profile2_attribute0",
            "kbrd/redial_eval/302_1_profile1_attribute0",
        ]
        kept = Transcript.objects.get(external_id=self.CELL.format("150_4"))
        assert kept.metadata["dropped_duplicates"] == [
            "dupes/" + self.CELL.format("300_2") + ".json",
            "dupes/" + self.CELL.format("1000_1") + ".json",
        ]

    def test_only_concept4crs_imports_dedupe_cells(self, tmp_path: Path) -> None:
        path = write_jsonl(tmp_path / "t.jsonl", [dialogue("t1")])
        with pytest.raises(ImportFailed, match="applies to concept4crs imports only"):
            import_transcripts(path, "New", format="jsonl", dedupe_cells=True)
        assert nothing_written()


class TestImportRows:
    def test_it_validates_parsed_rows_and_names_the_row(self) -> None:
        rows = [dialogue("s1"), dialogue("s2", lang=["en"])]
        with pytest.raises(ImportFailed) as failure:
            import_rows("Live", rows, source="live sessions")
        assert str(failure.value) == "live sessions row 2: lang must be a string"
        assert nothing_written()

    def test_it_writes_valid_rows_into_an_existing_campaign(self, campaign: Campaign) -> None:
        result = import_rows(campaign, [dialogue("s1", metadata={"alias": "System C"})])
        assert result.created == 1
        assert campaign.transcripts.get(external_id="s1").metadata == {"alias": "System C"}


class TestUpsertLlmScores:
    def test_it_stores_scores_and_replaces_an_evaluators_earlier_ones(
        self, campaign: Campaign
    ) -> None:
        first = campaign.transcripts.get(external_id="t001")
        manner = campaign.rubric.dimensions.get(key="manner")
        now = timezone.now()

        def row(score: float, rationale: str) -> LLMScoreRow:
            return LLMScoreRow(first.pk, manner.pk, "gpt", score, rationale, now)

        assert upsert_llm_scores([row(3, "fine")]) == 1
        assert upsert_llm_scores([row(1, "worse")]) == 1
        assert list(LLMScore.objects.values_list("evaluator", "score", "rationale")) == [
            ("gpt", 1.0, "worse")
        ]


class TestLlmScores:
    def test_it_imports_jsonl_scores_of_one_evaluator(
        self, tmp_path: Path, campaign: Campaign
    ) -> None:
        path = write_jsonl(
            tmp_path / "scores.jsonl",
            [
                {"transcript_id": "t001", "dimension": "relevance", "score": 4, "rationale": "r"},
                {"transcript_id": "t002", "dimension": "overall", "score": 2.5, "evaluator": "gpt"},
            ],
        )
        result = import_llm_scores(path, campaign.name, evaluator="gpt")
        assert result.llm_scores == 2
        rows = set(
            LLMScore.objects.values_list(
                "transcript__external_id", "dimension__key", "evaluator", "score", "rationale"
            )
        )
        assert rows == {("t001", "relevance", "gpt", 4.0, "r"), ("t002", "overall", "gpt", 2.5, "")}

    def test_it_imports_a_long_csv_and_a_reimport_updates(
        self, tmp_path: Path, campaign: Campaign
    ) -> None:
        path = write_csv(
            tmp_path / "scores.csv",
            "transcript_id,dimension,score,rationale\nt001,manner,3,fine\nt002,manner,5,\n",
        )
        import_llm_scores(path, campaign, evaluator="claude")
        write_csv(path, "transcript_id,dimension,score,rationale\nt001,manner,1,worse\n")
        import_llm_scores(path, campaign, evaluator="claude")
        assert sorted(LLMScore.objects.values_list("transcript__external_id", "score")) == [
            ("t001", 1.0),
            ("t002", 5.0),
        ]

    def test_bad_scores_are_reported_by_line_and_nothing_is_written(
        self, tmp_path: Path, campaign: Campaign
    ) -> None:
        path = write_csv(
            tmp_path / "scores.csv",
            "transcript_id,dimension,score,rationale\n"
            "t001,manner,3,fine\n"
            "t001,manner,6,too high\n"
            "t404,manner,3,\n"
            "t002,charm,3,\n"
            "t002,better_response,1,\n"
            "t003,manner,three,\n"
            "t001,manner,2,again\n",
        )
        with pytest.raises(ImportFailed) as failure:
            import_llm_scores(path, campaign, evaluator="gpt")
        assert [str(p) for p in failure.value.problems] == [
            "scores.csv line 3: score 6 is outside the scale of 'manner' (1–5)",
            "scores.csv line 4: transcript_id 't404' is not a transcript of this campaign",
            "scores.csv line 5: dimension 'charm' is not a dimension of the rubric",
            "scores.csv line 6: dimension 'better_response' is not asked about dialogue items",
            "scores.csv line 7: score must be a number",
            "scores.csv line 8: repeats the score of 't001' on 'manner' (line 2)",
        ]
        assert not LLMScore.objects.exists()

    def test_a_line_naming_another_evaluator_is_refused(
        self, tmp_path: Path, campaign: Campaign
    ) -> None:
        path = write_jsonl(
            tmp_path / "s.jsonl",
            [{"transcript_id": "t001", "dimension": "manner", "score": 3, "evaluator": "other"}],
        )
        with pytest.raises(ImportFailed) as failure:
            import_llm_scores(path, campaign, evaluator="gpt")
        assert str(failure.value) == (
            "s.jsonl line 1: evaluator 'other' differs from the evaluator being imported ('gpt')"
        )

    def test_an_unknown_campaign_is_an_error(self, tmp_path: Path) -> None:
        path = write_jsonl(tmp_path / "s.jsonl", [])
        with pytest.raises(ImportFailed, match="campaign 'Nope' does not exist"):
            import_llm_scores(path, "Nope", evaluator="gpt")
