"""``manage.py intent_score``: the documented JSON, the table, and one-line errors."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, ManagementUtility, call_command

GOLD = """{
  "0": {"query": "明天北京天气怎么样", "label": "weather"},
  "1": {"query": "你好呀", "label": "chat"},
  "2": {"query": "放一首歌", "label": "music"},
  "3": {"query": "后天会下雨吗", "label": "weather"}
}"""


def run(tmp_path: Path, pred: str, *extra: str) -> str:
    (tmp_path / "gold.json").write_text(GOLD, encoding="utf-8")
    (tmp_path / "pred.csv").write_text(pred, encoding="utf-8")
    out = StringIO()
    call_command(
        "intent_score",
        "--gold",
        str(tmp_path / "gold.json"),
        "--pred",
        str(tmp_path / "pred.csv"),
        *extra,
        stdout=out,
    )
    return out.getvalue()


def test_it_prints_the_documented_json(tmp_path: Path) -> None:
    # weather: tp 1, predicted 1, support 2; chat: tp 1, predicted 2; music: never predicted.
    output = run(
        tmp_path,
        "id,label\n0,weather\n1,chat\n2,chat\n3,music\n",
        "--format",
        "json",
        "--bootstrap",
        "200",
    )
    result = json.loads(output)
    assert set(result) == {
        "n",
        "accuracy",
        "macro_precision",
        "macro_recall",
        "official_f",
        "macro_f1",
        "official_f_ci",
        "per_class",
        "confusion",
    }
    # Labels in SMP order: chat, weather, music.
    # P: 1, 1/2, 0/1 -> 1/2;  R: 1/2, 1, 0 -> 1/2;  F = 1/2
    assert result["n"] == 4
    assert result["macro_precision"] == pytest.approx(0.5)
    assert result["macro_recall"] == pytest.approx(0.5)
    assert result["official_f"] == pytest.approx(0.5)
    # F1: 2/3, 2/3, 0 -> 4/9
    assert result["macro_f1"] == pytest.approx(4 / 9)
    assert result["per_class"]["music"] == {
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
        "support": 1,
    }
    assert result["confusion"] == {
        "labels": ["chat", "weather", "music"],
        "matrix": [[1, 0, 0], [0, 1, 1], [1, 0, 0]],
        "outside_gold_set": [0, 0, 0],
    }
    low, high = result["official_f_ci"]
    assert 0 <= low <= high <= 1


def test_a_label_outside_the_gold_set_has_its_own_confusion_column(tmp_path: Path) -> None:
    # Utterance 3 (gold weather) is predicted as flight, an SMP label the gold set lacks.
    output = run(tmp_path, "id,label\n0,weather\n1,chat\n2,music\n3,flight\n", "--format", "json")
    confusion = json.loads(output)["confusion"]
    assert confusion["matrix"] == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert confusion["outside_gold_set"] == [0, 1, 0]
    supports = {"chat": 1, "weather": 2, "music": 1}
    for label, row, outside in zip(
        confusion["labels"], confusion["matrix"], confusion["outside_gold_set"], strict=True
    ):
        assert sum(row) + outside == supports[label]


def test_the_same_seed_gives_the_same_interval(tmp_path: Path) -> None:
    pred = "id,label\n0,weather\n1,chat\n2,chat\n3,weather\n"
    first = json.loads(run(tmp_path, pred, "--format", "json", "--seed", "3"))
    again = json.loads(run(tmp_path, pred, "--format", "json", "--seed", "3"))
    assert first["official_f_ci"] == again["official_f_ci"]


def test_the_table_shows_both_f_scores(tmp_path: Path) -> None:
    output = run(tmp_path, "id,label\n0,weather\n1,chat\n2,chat\n3,music\n", "--bootstrap", "0")
    assert "official F       0.5000" in output
    assert "macro-F1         0.4444" in output
    assert "music       0.0000  0.0000  0.0000        1" in output


def test_a_bad_prediction_names_file_line_and_problem(tmp_path: Path) -> None:
    with pytest.raises(CommandError) as error:
        run(tmp_path, "id,label\n0,weather\n1,joke\n2,chat\n2,chat\n")
    message = str(error.value)
    assert (
        message
        == f"{tmp_path / 'pred.csv'}:3: label: joke is not in the label set (and 1 more problems)"
    )
    assert "\n" not in message


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"nowhere\.json: no such file"):
        call_command("intent_score", "--gold", str(tmp_path / "nowhere.json"), "--pred", "x")


def test_it_exits_non_zero_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "gold.json").write_text('{"0": {"query": "", "label": "chat"}}', encoding="utf-8")
    (tmp_path / "pred.csv").write_text("id,label\n0,chat\n", encoding="utf-8")
    argv = ["manage.py", "intent_score", "--gold", str(tmp_path / "gold.json")]
    with pytest.raises(SystemExit) as exit_:
        ManagementUtility([*argv, "--pred", str(tmp_path / "pred.csv")]).execute()
    assert exit_.value.code == 1
    assert capsys.readouterr().err.strip() == (
        f"CommandError: {tmp_path / 'gold.json'}:1: query: is empty"
    )
