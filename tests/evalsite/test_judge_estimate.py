"""``manage.py judge_estimate``: its JSON contract, equality with ``ppi_py``, its table, its errors.

The reference figures are those of ``data/ppi_reference.json``, written by ``ppi_py`` 0.2.3 in a
scratch environment (see tests/evalsite/test_prediction_powered.py for the command); each case
becomes one group of a CSV here. No database is used.
"""

from __future__ import annotations

import csv
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from testing.commands import command_json, command_output

DATA = Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "ppi_reference.json").read_text(encoding="utf-8"))
KEYS = {
    "ppi_mean",
    "ppi_ci",
    "classical_mean",
    "classical_ci",
    "llm_only_mean",
    "n_labeled",
    "n_unlabeled",
    "lambda",
    "effective_labels",
}


def run(*arguments: str) -> str:
    return command_output("judge_estimate", *arguments)


def run_json(*arguments: str) -> dict[str, Any]:
    return command_json("judge_estimate", *arguments)


def write(path: Path, rows: list[list[object]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["group", "item", "llm", "human"], *rows])
    return path


@pytest.fixture
def reference_file(tmp_path: Path) -> Path:
    rows: list[list[object]] = []
    for case in REFERENCE["cases"]:
        rated = zip(case["llm_labeled"], case["human"], strict=True)
        for number, (llm, human) in enumerate(rated):
            rows.append([case["name"], f"r{number}", repr(llm), repr(human)])
        for number, llm in enumerate(case["llm_unlabeled"]):
            rows.append([case["name"], f"u{number}", repr(llm), ""])
    return write(tmp_path / "reference.csv", rows)


def test_it_equals_ppi_py_on_every_group(reference_file: Path) -> None:
    groups = run_json(str(reference_file))["groups"]
    assert set(groups) == {case["name"] for case in REFERENCE["cases"]}
    for case in REFERENCE["cases"]:
        shown = groups[case["name"]]
        assert shown["ppi_mean"] == pytest.approx(case["ppi_mean"], abs=1e-6)
        assert shown["ppi_ci"] == pytest.approx(case["ppi_ci"], abs=1e-6)
        assert shown["classical_ci"] == pytest.approx(case["classical_ci"], abs=1e-6)
        assert shown["n_labeled"] == len(case["human"])
        assert shown["n_unlabeled"] == len(case["llm_unlabeled"])


def test_its_json_holds_the_named_keys(reference_file: Path) -> None:
    groups = run_json(str(reference_file), "--target-half-width", "0.1")["groups"]
    correlated = groups["correlated_bias"]
    assert KEYS | {"needed"} <= set(correlated)
    assert set(correlated) <= KEYS | {"needed", "rogan_gladen", "notes"}
    assert set(correlated["needed"]) == {"classical", "ppi"}
    assert correlated["needed"]["ppi"] < correlated["needed"]["classical"]
    assert 0 < correlated["lambda"] < 1
    assert correlated["effective_labels"] > correlated["n_labeled"]
    # Only the 0/1 group gets the Rogan–Gladen rate.
    assert "rogan_gladen" not in correlated
    assert set(groups["binary"]["rogan_gladen"]) == {
        "rate",
        "ci",
        "sensitivity",
        "specificity",
        "clipped",
    }
    assert "needed" not in run_json(str(reference_file))["groups"]["binary"]


def test_it_computes_a_small_file_by_hand(tmp_path: Path) -> None:
    # The LLM says one more than people on items a–d, and 3, 4 on the unrated e, f: its mean
    # over the six items is 21/6 = 3.5; PPI++ removes the bias and gives the people's 2.5.
    path = write(
        tmp_path / "hand.csv",
        [
            ["sys", "a", 2, 1],
            ["sys", "b", 3, 2],
            ["sys", "c", 4, 3],
            ["sys", "d", 5, 4],
            ["sys", "e", 3, ""],
            ["sys", "f", 4, ""],
        ],
    )
    shown = run_json(str(path))["groups"]["sys"]
    assert shown["llm_only_mean"] == pytest.approx(3.5)
    assert shown["ppi_mean"] == pytest.approx(2.5)
    assert shown["classical_mean"] == pytest.approx(2.5)
    assert shown["lambda"] == pytest.approx(25 / 66)
    assert (shown["n_labeled"], shown["n_unlabeled"]) == (4, 2)


def test_a_group_with_too_few_ratings_has_nulls_and_a_note(tmp_path: Path) -> None:
    path = write(tmp_path / "few.csv", [["sys", "a", 2, 1], ["sys", "b", 3, ""]])
    shown = run_json(str(path))["groups"]["sys"]
    assert shown["ppi_mean"] is None
    assert shown["classical_ci"] is None
    assert shown["llm_only_mean"] == pytest.approx(2.5)
    assert shown["notes"] == ["no estimate: people rated fewer than 2 items"]


def test_the_table_shows_each_group(reference_file: Path) -> None:
    table = run(str(reference_file), "--format", "table", "--target-half-width", "0.1")
    assert "group: correlated_bias" in table
    assert "  lambda            0.627" in table
    assert "needed            classical 265, ppi 145" in table


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([["sys", "a", "high", 1]], "line 2, field llm: 'high' is not a number"),
        ([["sys", "a", 2, "x"]], "line 2, field human: 'x' is not a number"),
        ([["", "a", 2, 1]], "line 2, field group: is empty"),
        ([["sys", "a", 2, 1], ["sys", "a", 3, ""]], "line 3, field item: 'a' of group 'sys'"),
        ([["sys", "a", 2, 1], ["sys", "b", "", 1]], "line 3, field llm: is empty"),
    ],
)
def test_a_bad_file_is_refused_whole(
    tmp_path: Path, rows: list[list[object]], message: str
) -> None:
    path = write(tmp_path / "bad.csv", [["sys", "z", 1, 1], ["sys", "y", 2, ""], *rows])
    # The two good rows come first, so every line number above is two further down.
    message = message.replace("line 2", "line 4").replace("line 3", "line 5")
    out = StringIO()
    with pytest.raises(CommandError, match=message):
        call_command("judge_estimate", str(path), stdout=out)
    assert out.getvalue() == ""


def test_a_file_without_the_columns_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "wrong.csv"
    path.write_text("group,item,score\nsys,a,3\n", encoding="utf-8")
    with pytest.raises(CommandError, match="line 1: the header lacks the column"):
        run(str(path))


def test_it_refuses_an_alpha_outside_zero_one(reference_file: Path) -> None:
    with pytest.raises(CommandError, match="--alpha"):
        run(str(reference_file), "--alpha", "1.5")
    with pytest.raises(CommandError, match="--target-half-width"):
        run(str(reference_file), "--target-half-width", "0")


def test_the_worked_example_in_the_docs_is_what_the_command_prints() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "estimates.md").read_text("utf-8")
    shown = docs.split("--target-half-width 0.1\n", 1)[1].split("```", 1)[0]
    printed = run(
        str(DATA / "judge_estimate_example.csv"),
        "--format",
        "table",
        "--target-half-width",
        "0.1",
    )
    assert printed.strip() == shown.strip()


def test_it_equals_ppi_py_on_the_example_file() -> None:
    # The generator read this file with its own CSV code and passed each group to ppi_py.
    groups = run_json(str(DATA / "judge_estimate_example.csv"))["groups"]
    expected = REFERENCE["example_file"]
    assert set(groups) == set(expected)
    for name, figures in expected.items():
        assert groups[name]["ppi_mean"] == pytest.approx(figures["ppi_mean"], abs=1e-6)
        assert groups[name]["ppi_ci"] == pytest.approx(figures["ppi_ci"], abs=1e-6)
        assert groups[name]["classical_ci"] == pytest.approx(figures["classical_ci"], abs=1e-6)
