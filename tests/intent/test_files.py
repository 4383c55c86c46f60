"""Reading datasets and predictions: every problem named by file, line and field."""

from __future__ import annotations

import pytest
from django.utils import translation

from intent.alignment import align, gold_label_set
from intent.files import IntentFileError, read_dataset, read_predictions

LABELS = ("weather", "chat", "music")

RELEASED = """{
  "0": {"query": "明天北京天气怎么样", "label": "weather"},
  "1": {"query": "你好呀", "label": "chat"},
  "2": {"query": "放一首周杰伦的歌", "label": "music"}
}"""


@pytest.fixture(autouse=True)
def english() -> object:
    with translation.override("en"):
        yield


def problems_of(error: pytest.ExceptionInfo[IntentFileError]) -> list[str]:
    return [str(problem) for problem in error.value.problems]


def test_it_reads_the_released_json_format() -> None:
    rows = read_dataset(RELEASED, "dev.json", LABELS)
    assert [(r.id, r.label, r.line) for r in rows] == [
        ("0", "weather", 2),
        ("1", "chat", 3),
        ("2", "music", 4),
    ]
    assert rows[0].query == "明天北京天气怎么样"


def test_it_reads_csv_with_quoted_commas() -> None:
    rows = read_dataset('id,query,label\n7,"好的,谢谢",chat\n', "dev.csv", LABELS)
    assert [(r.id, r.query, r.label, r.line) for r in rows] == [("7", "好的,谢谢", "chat", 2)]


def test_it_names_every_bad_line_and_field_and_returns_nothing() -> None:
    text = """{
  "0": {"query": "明天北京天气怎么样", "label": "weather"},
  "0": {"query": "你好", "label": "chat"},
  "2": {"query": "  ", "label": "music"},
  "3": {"query": "讲个笑话", "label": "joke"}
}"""
    with pytest.raises(IntentFileError) as error:
        read_dataset(text, "dev.json", LABELS)
    assert problems_of(error) == [
        "dev.json:3: id: 0 repeats line 2",
        "dev.json:4: query: is empty",
        "dev.json:5: label: joke is not in the label set",
    ]


def test_broken_json_is_located() -> None:
    text = '{\n  "0": {"query": "你好", "label": "chat"}\n  "1": {}\n}'
    with pytest.raises(IntentFileError) as error:
        read_dataset(text, "dev.json", LABELS)
    assert problems_of(error) == ["dev.json:3: a ',' or '}' is missing"]


def test_a_csv_needs_its_header() -> None:
    with pytest.raises(IntentFileError) as error:
        read_dataset("id,text,label\n1,你好,chat\n", "dev.csv", LABELS)
    assert problems_of(error) == ["dev.csv:1: the header must be id,query,label"]


def test_it_reads_a_results_list() -> None:
    text = '{"resultsList": [\n {"id": "0", "result": "weather"},\n {"id": 1, "result": "chat"}\n]}'
    assert [(p.id, p.label, p.line) for p in read_predictions(text, "pred.json")] == [
        ("0", "weather", 2),
        ("1", "chat", 3),
    ]


def test_predictions_must_cover_every_id_once_with_known_labels() -> None:
    gold = read_dataset(RELEASED, "dev.json", LABELS)
    predictions = read_predictions("id,label\n0,weather\n0,chat\n9,chat\n1,joke\n", "pred.csv")
    with pytest.raises(IntentFileError) as error:
        align(gold, LABELS, predictions, "pred.csv")
    assert problems_of(error) == [
        "pred.csv:3: id: 0 repeats line 2",
        "pred.csv:4: id: 9 is not in the test set",
        "pred.csv:5: label: joke is not in the label set",
    ]


def test_missing_ids_are_quoted() -> None:
    gold = read_dataset(RELEASED, "dev.json", LABELS)
    with pytest.raises(IntentFileError) as error:
        align(gold, LABELS, read_predictions("id,label\n1,chat\n", "p.csv"), "p.csv")
    assert problems_of(error) == ["p.csv: id: 2 ids have no prediction, such as 0, 2"]


def test_a_known_label_outside_the_gold_set_counts_as_no_answer() -> None:
    gold = read_dataset(RELEASED, "dev.json", None)
    labels = gold_label_set(gold, ("music", "chat", "weather", "email"))
    assert labels == ("music", "chat", "weather")
    predictions = read_predictions("id,label\n0,email\n1,chat\n2,music\n", "p.csv")
    aligned = align(gold, labels, predictions, "p.csv", also_known=("email",))
    assert aligned.pred.tolist() == [3, 1, 0]
