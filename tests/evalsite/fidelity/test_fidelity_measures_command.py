"""``manage.py fidelity_measures``: its JSON per task, its table, and its one-line errors."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evalsite.fidelity.rec_request import cosine_diversity
from evalsite.models import LLMCall
from testing.embeddings import deterministic_embedding
from tests.fake_openai import FakeOpenAI, fake_openai_server  # noqa: F401

ROOT = Path(__file__).resolve().parents[3]


def run(path: Path, task: str, *arguments: str) -> str:
    out = StringIO()
    call_command("fidelity_measures", str(path), "--task", task, *arguments, stdout=out)
    return out.getvalue()


def measures(path: Path, task: str, *arguments: str) -> dict[str, Any]:
    report = json.loads(run(path, task, *arguments))
    assert set(report) == {"groups"}
    groups: dict[str, Any] = report["groups"]
    return groups


def write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def jsonl(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    return write(tmp_path, "responses.jsonl", [json.dumps(record) for record in records])


def test_items_talk_removes_prompt_items_per_group(tmp_path: Path) -> None:
    # people: m2, m3 (m1 was in p1's prompt), m4, m5: four once each, 2 bits.
    # sim: m2 twice, m2 again (s2's m3 was its prompt): one item, 0 bits.
    path = jsonl(
        tmp_path,
        [
            {"group": "people", "responder": "p1", "mentions": ["m1", "m2", "m3"],
             "prompt_items": ["m1"]},
            {"group": "people", "responder": "p2", "mentions": ["m4", "m5"], "prompt_items": []},
            {"group": "sim", "responder": "s1", "mentions": ["m2", "m2"], "prompt_items": ["m1"]},
            {"group": "sim", "responder": "s2", "mentions": ["m2", "m3"], "prompt_items": ["m3"]},
        ],
    )  # fmt: skip
    groups = measures(path, "items_talk")
    assert groups["people"]["entropy_bits"] == pytest.approx(2.0)
    assert (groups["people"]["n_mentions"], groups["people"]["n_distinct"]) == (4, 4)
    assert groups["sim"]["entropy_bits"] == 0.0
    assert (groups["sim"]["n_mentions"], groups["sim"]["n_distinct"]) == (3, 1)
    assert groups["sim"]["entropy_cs_ci"] is None
    assert {"entropy_bits", "entropy_cs_bits", "n_mentions", "n_distinct", "entropy_cs_ci"} <= set(
        groups["sim"]
    )


def test_items_talk_gives_an_interval_over_enough_responders(tmp_path: Path) -> None:
    # 40 responders, three mentions each, drawn from 12 items with skewed weights.
    draws = np.random.default_rng(7).choice(12, size=(40, 3), p=np.arange(12, 0, -1) / 78)
    records: list[dict[str, object]] = [
        {"group": "people", "responder": f"p{i}", "mentions": [f"m{d}" for d in row],
         "prompt_items": []}
        for i, row in enumerate(draws)
    ]  # fmt: skip
    path = jsonl(tmp_path, records)
    first = measures(path, "items_talk", "--bootstrap", "200", "--seed", "1")["people"]
    again = measures(path, "items_talk", "--bootstrap", "200", "--seed", "1")["people"]
    other = measures(path, "items_talk", "--bootstrap", "200", "--seed", "2")["people"]
    low, high = first["entropy_cs_ci"]
    assert low <= first["entropy_cs_bits"] <= high
    assert first == again
    # The Chao–Shen interval is a jackknife over responders: no seed enters it.
    assert first["entropy_cs_ci"] == other["entropy_cs_ci"]
    assert measures(path, "items_talk", "--bootstrap", "0")["people"]["entropy_cs_ci"] is None


def test_bin_pref_gives_pearson_r_and_yes_rate(tmp_path: Path) -> None:
    # Ratings 1, 2, 3 with yes-rates 0, 1, 0.5: r = 0.5; yes 3 of 6. The constant group
    # says yes to everything: no r, and a note saying why.
    path = write(
        tmp_path,
        "answers.csv",
        [
            "item,avg_rating,group,responder,answer",
            "a,1,people,p1,no", "a,1,people,p2,No",
            "b,2,people,p1,yes", "b,2,people,p2,yes",
            "c,3,people,p1,yes", "c,3,people,p2,no",
            "a,1,sim,s1,yes", "b,2,sim,s1,yes", "c,3,sim,s1,yes",
        ],
    )  # fmt: skip
    groups = measures(path, "bin_pref")
    assert groups["people"]["pearson_r"] == pytest.approx(0.5)
    assert groups["people"]["yes_rate"] == pytest.approx(0.5)
    assert groups["people"]["n_items"] == 3
    assert groups["sim"]["pearson_r"] is None
    assert groups["sim"]["pearson_ci"] is None
    assert any("same yes-rate" in note for note in groups["sim"]["notes"])
    assert "by_frequency" not in groups["people"]


def test_bin_pref_splits_by_frequency_with_an_n_ratings_column(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "answers.csv",
        [
            "item,avg_rating,n_ratings,group,responder,answer",
            "a,1,9000,people,p1,no", "b,3,6000,people,p1,no", "c,5,5000,people,p1,yes",
            "d,1,20,people,p1,yes", "e,2,30,people,p1,yes", "f,4,40,people,p1,yes",
        ],
    )  # fmt: skip
    split = measures(path, "bin_pref", "--bootstrap", "0")["people"]["by_frequency"]
    assert split["frequent"]["n_items"] == 3
    assert split["frequent"]["pearson_r"] == pytest.approx(0.8660254)
    assert split["infrequent"]["pearson_r"] is None


def test_feedback_gives_coherence_and_comparisons(tmp_path: Path) -> None:
    # p1 coherent twice, p2 never: coherence 2 / 4. Comparisons: the positive once (shown
    # first), neither once.
    path = write(
        tmp_path,
        "feedback.csv",
        [
            "pair,group,responder,kind,answer,shown_first",
            "1,people,p1,positive,accept,", "1,people,p1,negative,reject,",
            "2,people,p2,positive,reject,", "2,people,p2,negative,accept,",
            "3,people,p1,comparison,positive,positive", "3,people,p2,comparison,neither,negative",
        ],
    )  # fmt: skip
    people = measures(path, "feedback")["people"]
    assert people["coherence"] == pytest.approx(0.5)
    assert people["accept_rate_positive"] == pytest.approx(0.5)
    assert people["reject_rate_negative"] == pytest.approx(0.5)
    assert "coherence_ci" in people
    assert people["comparison"]["share_positive"] == 1.0
    assert people["comparison"]["share_neither"] == pytest.approx(0.5)
    assert people["comparison"]["position_bias"] == 1.0


def test_rec_request_gives_the_type_token_ratio_and_embedding_diversity(
    tmp_path: Path,
) -> None:
    plain = jsonl(tmp_path, [{"group": "people", "text": "the cat the dog"},
                             {"group": "people", "text": "a b c"}])  # fmt: skip
    people = measures(plain, "rec_request")["people"]
    assert people["type_token_ratio"] == pytest.approx(0.875)
    assert people["embedding_diversity"] is None
    assert any("no embeddings" in note for note in people["notes"])
    embedded = jsonl(
        tmp_path,
        [{"group": "people", "text": "a", "embedding": [1, 0]},
         {"group": "people", "text": "b", "embedding": [0, 1]}],
    )  # fmt: skip
    diversity = measures(embedded, "rec_request")["people"]["embedding_diversity"]
    assert diversity == pytest.approx(1 - 1 / math.sqrt(2))


@pytest.mark.django_db
def test_rec_request_embeds_requests_through_an_endpoint(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    texts = ["movies about alcoholism", "space movies with silence", "need movie recs"]
    path = jsonl(tmp_path, [{"group": "people", "text": text} for text in texts])
    endpoint = ("--embeddings-base-url", fake_openai.base_url)
    model = ("--embeddings-model", fake_openai.model)
    people = measures(path, "rec_request", *endpoint, *model)["people"]
    vectors = np.array([deterministic_embedding(text) for text in texts])
    expected = cosine_diversity(np.ones((1, 3)), vectors)[0]
    assert people["embedding_diversity"] == pytest.approx(expected)
    assert fake_openai.requests[-1]["input"] == texts
    # Measured again, the embeddings come from the record.
    assert measures(path, "rec_request", *endpoint, *model)["people"] == people
    assert len(fake_openai.requests) == 1
    assert LLMCall.objects.filter(cached=True).count() == 1


def test_the_embedding_options_go_together_and_with_rec_request(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [{"group": "people", "text": "x"}])
    with pytest.raises(CommandError, match="give both"):
        run(path, "rec_request", "--embeddings-model", "m")
    with pytest.raises(CommandError, match="are for rec_request"):
        run(path, "items_talk", "--embeddings-model", "m")


def test_the_table_shows_each_group_with_its_notes(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [{"group": "people", "text": "the cat the dog"}])
    table = run(path, "rec_request", "--format", "table")
    assert "group: people" in table
    assert "type_token_ratio      0.750" in table
    assert "embedding_diversity   n/a" in table
    assert "note: no embeddings were given" in table


@pytest.mark.parametrize(
    ("task", "lines", "message"),
    [
        ("items_talk", ['{"group": "g", "responder": "r", "mentions": ["a"]}'],
         "line 1, field prompt_items: is missing"),
        ("items_talk", ['{"group": "g", "responder": "r", "mentions": [], "prompt_items": []}',
                        '{"group": "g", "responder": "r", "mentions": "a", "prompt_items": []}'],
         "line 2, field mentions: must be a list of item ids"),
        ("items_talk", ["", "{not json"], "line 2: not valid JSON"),
        ("bin_pref", ["item,avg_rating,group,responder,answer", "a,1,g,r,yes", "b,2,g,r,maybe"],
         "line 3, field answer: 'maybe' is not yes or no"),
        ("bin_pref", ["item,avg_rating,group,responder,answer", "a,high,g,r,yes"],
         "line 2, field avg_rating: 'high' is not a number"),
        ("bin_pref", ["item,avg_rating,group,responder,answer", "a,1,g,r,yes", "a,2,g,s,no"],
         "line 3, field avg_rating: 2, but line 2 gives item a 1"),
        ("bin_pref", ["item,rating,group,responder,answer", "a,1,g,r,yes"],
         "line 1: the header lacks the column(s) avg_rating"),
        ("feedback", ["pair,group,responder,kind,answer", "1,g,r,neutral,accept"],
         "line 2, field kind: 'neutral' is not positive or negative or comparison"),
        ("feedback", ["pair,group,responder,kind,answer", "1,g,,positive,accept"],
         "line 2, field responder: is empty"),
        ("rec_request", ['{"group": "g", "text": "x", "embedding": [1]}',
                         '{"group": "g", "text": "y"}'],
         "line 2, field embedding: must be on every line or on none"),
        ("rec_request", ['{"text": "x"}', '{"text": "y"}'],
         "line 1, field group: is missing (and 1 more problem)"),
    ],
)  # fmt: skip
def test_bad_input_names_file_line_and_field(
    tmp_path: Path, task: str, lines: list[str], message: str
) -> None:
    path = write(tmp_path, "bad.txt", lines)
    with pytest.raises(CommandError) as raised:
        run(path, task)
    assert str(raised.value) == f"{path}: {message}" or str(raised.value).startswith(
        f"{path}: {message}"
    )
    assert "\n" not in str(raised.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="cannot be read"):
        run(tmp_path / "absent.jsonl", "items_talk")


@pytest.mark.processes
def test_it_exits_non_zero_with_one_line_on_bad_input(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.csv", ["item,avg_rating,group,responder,answer", "a,1,g,r,maybe"])
    finished = subprocess.run(
        [sys.executable, "manage.py", "fidelity_measures", str(path), "--task", "bin_pref"],
        cwd=ROOT,
        env={**os.environ, "DEBUG": os.environ.get("DEBUG", "1")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert finished.returncode != 0
    assert finished.stderr.strip() == (
        f"CommandError: {path}: line 2, field answer: 'maybe' is not yes or no"
    )
