"""``manage.py agreement``: its JSON contract, its table, and its errors. No database is used."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management.base import CommandError

from evalsite.agreement.engine import human_llm_agreement
from evalsite.agreement.long_csv import read_long_csv
from evalsite.management.commands.agreement import Command
from testing.commands import command_json, command_output

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]
BLOCK_KEYS = {
    "n_items",
    "raters",
    "llm",
    "level",
    "alpha",
    "alpha_ci",
    "pearson",
    "spearman",
    "kendall",
    "mae",
    "mae_ci",
    "exact_agreement",
    "exact_agreement_ci",
    "exact_agreement_per_item",
    "exact_agreement_per_item_ci",
    "within_one",
    "within_one_ci",
    "chance",
    "alt_test",
    "alpha_gap_ci",
    "llm_distinct_answers",
    "verdict",
    "notes",
}


def run(*arguments: str) -> str:
    return command_output("agreement", *arguments)


def run_json(*arguments: str) -> dict[str, Any]:
    return command_json("agreement", *arguments)


def test_it_prints_the_hand_checked_statistics_as_json() -> None:
    report = run_json(str(DATA / "hand_example.csv"), "--llm", "gpt", "--level", "interval")
    block = report["dimensions"]["quality"]
    assert set(block) == BLOCK_KEYS
    assert block["n_items"] == 4
    assert block["level"] == "interval"
    assert block["alpha"]["humans"] == pytest.approx(1 - 42 / 206)
    assert block["alpha"]["llm_vs_human_mean"] == pytest.approx(1 - 24.5 / 219.5)
    assert block["pearson"]["r"] == pytest.approx(6 / math.sqrt(5.6875 * 8))
    assert block["kendall"]["tau"] == pytest.approx(5 / math.sqrt(30))
    assert block["exact_agreement"] == pytest.approx(3 / 8)
    assert block["alpha_ci"]["humans"] is None
    assert any("a bootstrap CI needs at least 10" in note for note in block["notes"])


def test_it_prints_the_chance_level_of_each_agreement_rate() -> None:
    report = run_json(str(DATA / "hand_example.csv"), "--llm", "gpt", "--level", "interval")
    chance = report["dimensions"]["quality"]["chance"]
    # 8 (LLM, human) pairs. The LLM's shares: 5 2/8, 3 4/8, 1 2/8. The humans' (4 5 2 2 3 4 1 2):
    # 1 1/8, 2 3/8, 3 1/8, 4 2/8, 5 1/8. Exact: (2·1 + 4·1 + 2·1)/64. Within one: 5 meets 4, 5
    # (2·3); 3 meets 2, 3, 4 (4·6); 1 meets 1, 2 (2·4): 38/64.
    assert chance["exact_agreement"]["marginals"] == pytest.approx(8 / 64)
    assert chance["within_one"]["marginals"] == pytest.approx(38 / 64)
    # Scores 1..5: five points; uniform chance 1/5 and (3·5 − 2)/25 within one.
    assert chance["scale_points"] == 5
    assert chance["exact_agreement"]["uniform"] == pytest.approx(1 / 5)
    assert chance["within_one"]["uniform"] == pytest.approx(13 / 25)
    table = run(str(DATA / "hand_example.csv"), "--llm", "gpt", "--format", "table")
    assert "    chance: 0.200 uniform on 5 points, 0.125 from the observed answers" in table
    assert "    chance: 0.520 uniform on 5 points, 0.594 from the observed answers" in table


def test_within_one_is_null_on_two_values_far_apart(tmp_path: Path) -> None:
    # 1 and 5 are four steps apart, so "within one" would only repeat exact agreement.
    path = tmp_path / "scores.csv"
    rows = [
        f"i{i},{rater},{score}"
        for i in range(12)
        for rater, score in (("h1", 1 + 4 * (i % 2)), ("h2", 5), ("llm", 1 + 4 * (i % 3 == 0)))
    ]
    path.write_text("item,rater,score\n" + "\n".join(rows) + "\n")
    for level in ("ordinal", "interval"):
        for scale in ((), ("--scale", "1:5")):
            block = run_json(str(path), "--llm", "llm", "--level", level, *scale)["dimensions"]
            found = block["all"]
            assert found["within_one"] is None, (level, scale)
            assert found["chance"]["within_one"] == {"uniform": None, "marginals": None}
            assert found["exact_agreement"] is not None
            assert any("the scores take at most two values" in n for n in found["notes"])


def test_it_defaults_to_ordinal_with_cis_for_every_statistic() -> None:
    # α intervals need 20 items and the alt-test 30 per annotator: this file has 40.
    report = run_json(str(DATA / "many_items.csv"), "--llm", "judge-llm")
    assert list(report["dimensions"]) == ["fluency", "relevance"]
    block = report["dimensions"]["fluency"]
    assert block["level"] == "ordinal"
    assert block["raters"] == ["ann1", "ann2", "ann3", "judge-llm"]
    for interval in (*block["alpha_ci"].values(), block["spearman"]["ci"], block["mae_ci"]):
        assert len(interval) == 2
        assert interval[0] <= interval[1]
    assert block["notes"] == []


def test_it_agrees_with_the_engine_called_directly() -> None:
    path = DATA / "two_dimensions.csv"
    arguments = ("--llm", "judge-llm", "--scale", "1:5", "--seed", "3", "--bootstrap", "200")
    expected = human_llm_agreement(
        read_long_csv(path), llm="judge-llm", scale=(1, 5), seed=3, resamples=200
    )
    assert run_json(str(path), *arguments) == json.loads(json.dumps(expected))


def test_it_names_the_dimension_all_without_a_dimension_column(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item,rater,score\na,r1,1\na,r2,2\nb,r1,3\nb,r2,3\nc,r1,2\nc,r2,1\n")
    report = run_json(str(path))
    assert list(report["dimensions"]) == ["all"]
    assert report["dimensions"]["all"]["n_items"] == 3


def test_it_leaves_the_llm_fields_null_without_llm() -> None:
    block = run_json(str(DATA / "hand_example.csv"), "--level", "interval")["dimensions"]["quality"]
    assert block["alpha"]["humans"] == pytest.approx(1 - 88 / 502)
    assert block["alpha"]["humans_plus_llm"] is None
    assert block["spearman"] == {"rho": None, "p": None, "ci": None}
    assert block["within_one"] is None


def test_it_turns_cis_off_with_bootstrap_zero() -> None:
    report = run_json(str(DATA / "two_dimensions.csv"), "--llm", "judge-llm", "--bootstrap", "0")
    block = report["dimensions"]["relevance"]
    assert block["alpha"]["humans"] is not None
    assert block["alpha_ci"]["humans"] is None
    assert block["pearson"]["ci"] is None
    assert "bootstrap resampling was turned off" in block["notes"][0]


def test_it_reproduces_cis_for_a_seed_and_changes_them_with_another() -> None:
    path = str(DATA / "many_items.csv")
    first = run_json(path, "--llm", "judge-llm", "--seed", "5")["dimensions"]["fluency"]
    again = run_json(path, "--llm", "judge-llm", "--seed", "5")["dimensions"]["fluency"]
    other = run_json(path, "--llm", "judge-llm", "--seed", "6")["dimensions"]["fluency"]
    assert first["alpha_ci"] == again["alpha_ci"]
    assert first["alpha_ci"] != other["alpha_ci"]


def test_it_breaks_down_by_metadata_columns() -> None:
    report = run_json(
        str(DATA / "two_dimensions.csv"),
        "--llm",
        "judge-llm",
        "--by",
        "system",
        "--by",
        "persona_emotion",
        "--bootstrap",
        "0",
    )
    by = report["dimensions"]["fluency"]["by"]
    assert sorted(by["system"]) == ["chatgpt", "kbrd"]
    assert sorted(by["persona_emotion"]) == ["angry", "happy", "neutral"]
    assert by["system"]["kbrd"]["n_items"] == 7
    assert set(by["system"]["kbrd"]) == BLOCK_KEYS


def test_it_prints_a_table() -> None:
    text = run(
        str(DATA / "hand_example.csv"), "--llm", "gpt", "--level", "interval", "--format", "table"
    )
    assert "dimension: quality" in text
    assert "alpha, humans" in text
    assert f"{1 - 42 / 206:.3f}" in text
    assert "note: alpha_ci.humans" in text


def test_it_counts_unused_scale_points_without_changing_ordinal_alpha() -> None:
    path = str(DATA / "hand_example.csv")
    plain = run_json(path, "--bootstrap", "0")["dimensions"]["quality"]
    scaled = run_json(path, "--bootstrap", "0", "--scale", "1:7")["dimensions"]["quality"]
    assert scaled["alpha"]["humans"] == pytest.approx(plain["alpha"]["humans"])


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "missing_rater_column.csv",
            "missing_rater_column.csv: line 1: there is no 'rater' column",
        ),
        ("non_numeric_score.csv", "line 3, column 'score': 'four' is not a number"),
        ("ragged_row.csv", "line 3: 4 field(s), but the header has 3"),
        ("repeated_score.csv", "lines 2 and 5: rater r1 scored item i1 more than once"),
    ],
)
def test_it_rejects_bad_files_naming_the_fault(name: str, message: str) -> None:
    with pytest.raises(CommandError) as raised:
        run(str(DATA / name))
    assert message in str(raised.value)


def test_it_rejects_a_file_that_is_not_csv(tmp_path: Path) -> None:
    path = tmp_path / "scores.xlsx"
    path.write_bytes(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\xa1\xff\x00")
    with pytest.raises(CommandError, match="the file is not CSV text"):
        run(str(path))


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("--llm", "gpt-5"), "--llm gpt-5: "),
        (("--scale", "5"), "--scale 5: give MIN:MAX"),
        (("--scale", "5:1"), "--scale 5:1: give MIN:MAX"),
        (("--scale", "2:4"), "line 3: score 1 is outside the scale 2:4"),
        (("--bootstrap", "-1"), "--bootstrap cannot be negative"),
        (("--by", "colour"), "no metadata column 'colour'"),
    ],
)
def test_it_rejects_bad_options(arguments: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError) as raised:
        run(str(DATA / "two_dimensions.csv"), *arguments)
    assert message in str(raised.value)


@pytest.mark.processes
def test_it_exits_non_zero_with_the_message_on_bad_input() -> None:
    environment = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1")}
    finished = subprocess.run(
        [sys.executable, "manage.py", "agreement", str(DATA / "non_numeric_score.csv")],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert finished.returncode != 0
    assert "line 3, column 'score'" in finished.stderr


def run_argv(capsys: pytest.CaptureFixture[str], *arguments: str) -> dict[str, Any]:
    """The command run as from a shell (``manage.py agreement ...``), its JSON read back."""
    Command().run_from_argv(["manage.py", "agreement", *arguments])
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


@pytest.mark.parametrize("scale", [("--scale", "-2:2"), ("--scale=-2:2",)])
def test_it_takes_a_scale_that_starts_below_zero(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scale: tuple[str, ...]
) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item,rater,score\na,h1,-2\na,h2,-1\nb,h1,2\nb,h2,2\nc,h1,0\nc,h2,1\n")
    block = run_argv(capsys, str(path), *scale, "--bootstrap", "0")["dimensions"]["all"]
    assert block["n_items"] == 3
    assert block["alpha"]["humans"] is not None


def test_it_refuses_a_score_outside_a_negative_scale() -> None:
    with pytest.raises(CommandError, match="score 5 is outside the scale -2:2"):
        run(str(DATA / "many_items.csv"), "--scale=-2:2")


def test_it_runs_the_alt_test_at_the_epsilon_and_scoring_given() -> None:
    path = str(DATA / "many_items.csv")
    default = run_json(path, "--llm", "judge-llm", "--bootstrap", "0")["dimensions"]["fluency"]
    assert (default["alt_test"]["epsilon"], default["alt_test"]["scoring"]) == (0.15, "neg_rmse")
    chosen = run_json(
        path, "--llm", "judge-llm", "--bootstrap", "0", "--epsilon", "0.2",
        "--alt-scoring", "accuracy",
    )["dimensions"]["fluency"]  # fmt: skip
    alt = chosen["alt_test"]
    assert (alt["epsilon"], alt["scoring"]) == (0.2, "accuracy")
    assert [human["rater"] for human in alt["humans"]] == ["ann1", "ann2", "ann3"]
    assert set(alt["humans"][0]) == {
        "rater",
        "n_items",
        "p_value",
        "p_adjusted",
        "rejected",
        "advantage",
    }
    assert [human["n_items"] for human in alt["humans"]] == [40, 40, 40]


def test_it_refuses_an_epsilon_outside_zero_to_one() -> None:
    with pytest.raises(CommandError, match="--epsilon must be at least 0 and below 1"):
        run(str(DATA / "many_items.csv"), "--epsilon", "1.5")


def test_its_table_shows_the_alt_test_and_tiny_p_values_as_below_a_thousandth() -> None:
    text = run(str(DATA / "many_items.csv"), "--llm", "judge-llm", "--format", "table")
    assert "alt-test (epsilon 0.15, neg_rmse): failed, winning rate 0.000" in text
    assert "vs ann1: 40 items, p = " in text
    pearson = next(line for line in text.splitlines() if "Pearson r" in line)
    assert pearson.endswith("p < 0.001")
    assert "p = 0.000" not in text
    assert "alpha, LLM vs each human" in text
    assert "exact agreement, per item" in text


def test_it_says_that_alpha_on_one_item_means_nothing(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item,rater,score\na,h1,1\na,h2,3\n")
    block = run_json(str(path), "--bootstrap", "0")["dimensions"]["all"]
    assert block["alpha"]["humans"] == 0.0
    assert any(
        "rest on a single item: α on one item means nothing" in note for note in block["notes"]
    )


LABELS = (
    "item,rater,score\n"
    "a,h1,yes\na,h2,yes\na,llm,no\n"
    "b,h1,no\nb,h2,n/a: problem is resolved\nb,llm,no\n"
    "c,h1,yes\nc,h2,\nc,llm,yes\n"
)


def test_it_treats_text_labels_as_nominal_categories(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(LABELS)
    block = run_json(str(path), "--level", "nominal", "--llm", "llm", "--bootstrap", "0")[
        "dimensions"
    ]["all"]
    # Humans pair on a (yes, yes) and b (no, n/a); c's empty cell is missing. n = 4 values
    # (yes 2, no 1, n/a 1): α = 1 − 3 · 2 / (2 · (2 + 2 + 1)) = 0.4.
    assert block["alpha"]["humans"] == pytest.approx(0.4)
    # LLM pairs: a 0 of 2, b 1 of 2, c 1 of 1.
    assert block["exact_agreement"] == pytest.approx(2 / 5)
    assert block["exact_agreement_per_item"] == pytest.approx((0 + 1 / 2 + 1) / 3)
    assert block["pearson"]["r"] is None
    assert block["mae"] is None
    assert block["within_one"] is None
    assert any(
        note.startswith("alpha.llm_vs_human_mean, alpha_ci.llm_vs_human_mean, pearson.r")
        and "mae, mae_ci, within_one and within_one_ci are null: the scores are text labels, "
        "categories with no numeric distance."
        in note
        for note in block["notes"]
    )


def test_it_still_names_the_line_of_a_text_score_at_other_levels(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(LABELS)
    with pytest.raises(CommandError, match="line 2, column 'score': 'yes' is not a number"):
        run(str(path), "--llm", "llm")


def test_it_refuses_neg_rmse_for_text_labels(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(LABELS)
    with pytest.raises(CommandError, match="neg_rmse needs numbers"):
        run(str(path), "--level", "nominal", "--llm", "llm", "--alt-scoring", "neg_rmse")


def test_a_breakdown_counts_its_intervals_and_marks_what_survives_bh(tmp_path: Path) -> None:
    # Three systems of 30 items; the LLM follows people on two and answers at random on one.
    generator = np.random.default_rng(7)
    rows = ["item,rater,score,system"]
    for system in ("a", "b", "c"):
        for number in range(30):
            truth = int(generator.integers(1, 6))
            for person in ("h1", "h2", "h3"):
                score = int(np.clip(truth + generator.choice([-1, 0, 0, 1]), 1, 5))
                rows.append(f"{system}{number},{person},{score},{system}")
            llm = int(generator.integers(1, 6)) if system == "c" else truth
            rows.append(f"{system}{number},llm,{llm},{system}")
    path = tmp_path / "systems.csv"
    path.write_text("\n".join(rows) + "\n")
    arguments = (str(path), "--llm", "llm", "--by", "system", "--bootstrap", "50")
    report = run_json(*arguments)
    family = report["breakdowns"]["all"]["system"]
    groups = report["dimensions"]["all"]["by"]["system"]
    p_values = {name: group["pearson"]["p"] for name, group in groups.items()}
    assert family["tested"] == 3
    # BH by hand: the k-th smallest p is adjusted to min over i ≥ k of m·p_(i)/i.
    tested = sorted((p, name) for name, p in p_values.items())
    for rank, (_, name) in enumerate(tested, start=1):
        adjusted = min(3 * p / i for i, (p, _) in enumerate(tested, start=1) if i >= rank)
        assert family["survives_bh"][name] is (adjusted <= 0.05)
    assert family["survives_bh"]["a"] is True and family["survives_bh"]["c"] is False
    intervals = sum(
        sum(isinstance(ci, list) for ci in group["alpha_ci"].values())
        + sum(group[name]["ci"] is not None for name in ("pearson", "spearman", "kendall"))
        + sum(
            group[key] is not None
            for key in (
                "mae_ci",
                "exact_agreement_ci",
                "exact_agreement_per_item_ci",
                "within_one_ci",
            )
        )
        for group in groups.values()
    )
    assert family["intervals"] == intervals > 9
    table = run(*arguments, "--format", "table")
    assert (
        f"breakdown of all by system: 3 groups, {intervals} 95% intervals (with so many, "
        "some exclude 0 by chance alone); Pearson r survives a Benjamini-Hochberg correction "
        f"at 5% in {family['surviving']} of the 3 groups with a p-value"
    ) in table
    system_c = table[table.index("dimension: all / system = c") :]
    assert "Pearson r does not survive Benjamini-Hochberg at 5% across system" in system_c
    assert table.count("survives Benjamini-Hochberg at 5% across system") == family["surviving"]
    assert "breakdowns" not in run_json(str(path), "--llm", "llm")
