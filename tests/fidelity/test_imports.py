from __future__ import annotations

import csv
import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from annotation.imports.problems import ImportFailed
from fidelity import imports
from fidelity.imports import ItemRow, RequestRow, store_items
from fidelity.models import Study

FOLDER = itertools.count()


def _file(data: bytes, name: str, tmp: Path) -> Path:
    folder = tmp / str(next(FOLDER))
    folder.mkdir()
    path = folder / name
    path.write_bytes(data)
    return path


ReadItems = Callable[[bytes, str], list[ItemRow]]
ReadRequests = Callable[[bytes, str], list[RequestRow]]


@pytest.fixture
def read_items(tmp_path: Path) -> ReadItems:
    """Reads ``data`` as the uploaded file ``name``."""
    return lambda data, name: imports.read_items(_file(data, name, tmp_path))


@pytest.fixture
def read_requests(tmp_path: Path) -> ReadRequests:
    return lambda data, name: imports.read_requests(_file(data, name, tmp_path))


def test_items_are_read_with_their_ratings(read_items: ReadItems) -> None:
    rows = read_items(
        b"item_id,title,avg_rating,n_ratings\nm1,Heat,4.5,9000\n\nm2,Up,3,12\n", "i.csv"
    )
    assert [(r.item_id, r.title, r.avg_rating, r.n_ratings) for r in rows] == [
        ("m1", "Heat", 4.5, 9000),
        ("m2", "Up", 3.0, 12),
    ]


def test_every_bad_item_row_names_file_line_and_field(read_items: ReadItems) -> None:
    data = (
        b"item_id,title,avg_rating,n_ratings\n"
        b"m1,,4.5,9000\nm2,Up,high,-3\nm2,Up,3,1\nm2,Again,3,1\n"
    )
    with pytest.raises(ImportFailed) as failed:
        read_items(data, "items.csv")
    lines = [str(problem) for problem in failed.value.problems]
    assert lines == [
        "items.csv line 2: field title: is empty",
        "items.csv line 3: field avg_rating: 'high' is not a number",
        "items.csv line 3: field n_ratings: '-3' is not a whole number ≥ 0",
        "items.csv line 5: field item_id: 'm2' is already on line 4",
    ]


def test_a_missing_column_is_named(read_items: ReadItems) -> None:
    with pytest.raises(ImportFailed, match="the header lacks n_ratings"):
        read_items(b"item_id,title,avg_rating\nm1,Heat,4\n", "items.csv")


def test_requests_are_read_and_problems_located(read_requests: ReadRequests) -> None:
    good = b'{"id": "r1", "request": "heist?", "answer_items": ["m1", 2], "answer_text": "Heat"}\n'
    rows = read_requests(good, "r.jsonl")
    assert rows[0].answer_items == ("m1", "2") and rows[0].answer_text == "Heat"
    more = [
        b'{"id": "r1", "request": "x", "answer_items": ["m1"]}',
        b"not json",
        b'{"id": "r3", "request": "", "answer_items": []}',
    ]
    bad = good + b"\n".join(more) + b"\n"
    with pytest.raises(ImportFailed) as failed:
        read_requests(bad, "r.jsonl")
    assert [str(p) for p in failed.value.problems] == [
        "r.jsonl line 2: field id: 'r1' is already on line 1",
        "r.jsonl line 3: not valid JSON (Expecting value)",
        "r.jsonl line 4: field request: is empty",
        "r.jsonl line 4: field answer_items: must be a non-empty list of item ids",
    ]


@pytest.mark.django_db
def test_a_bad_file_leaves_the_study_as_it_was(read_items: ReadItems) -> None:
    study = Study.objects.create(name="s")
    store_items(study, read_items(b"item_id,title,avg_rating,n_ratings\nm1,Heat,4.5,9\n", "a.csv"))
    with pytest.raises(ImportFailed):
        store_items(study, read_items(b"item_id,title,avg_rating,n_ratings\nm2,Up,x,1\n", "b.csv"))
    assert list(study.items.values_list("item_id", flat=True)) == ["m1"]


def test_unstorable_text_and_deep_nesting_are_named_by_line_and_field(
    read_requests: ReadRequests,
) -> None:
    lines = [
        b'{"id": "r1", "request": "fine", "answer_items": ["m1"]}',
        b'{"id": "r2", "request": "a\\u0000b", "answer_items": ["m1"]}',
        b'{"id": "r3", "request": "x", "answer_items": ["\\ud800"]}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"id": "r5", "request": "x", "answer_items": ["m1"], "answer_text": "\xff"}',
    ]
    with pytest.raises(ImportFailed) as failed:
        read_requests(b"\n".join(lines) + b"\n", "r.jsonl")
    problems = [str(p) for p in failed.value.problems]
    assert (
        problems[0]
        == "r.jsonl line 2: field request: cannot be stored: it contains a NUL character (\\u0000)"
    )
    assert problems[1].startswith("r.jsonl line 3: field answer_items[0]: cannot be stored")
    assert problems[2] == "r.jsonl line 4: the JSON is nested too deeply to read"
    assert problems[3].startswith("r.jsonl line 5: the line is not valid UTF-8")
    assert len(problems) == 4


def test_a_request_line_beyond_the_limit_is_named(
    read_requests: ReadRequests, settings: Settings
) -> None:
    settings.IMPORT_MAX_TRANSCRIPT_BYTES = 100
    line = b'{"id": "r1", "request": "' + b"x" * 200 + b'", "answer_items": ["m1"]}\n'
    with pytest.raises(ImportFailed, match=r"r.jsonl line 1: the line is larger than 100 bytes"):
        read_requests(line, "r.jsonl")


def test_unstorable_and_huge_csv_cells_are_named(read_items: ReadItems) -> None:
    header = b"item_id,title,avg_rating,n_ratings\n"
    with pytest.raises(ImportFailed) as failed:
        read_items(header + b"m1,He\x00at,4.5,9\n", "items.csv")
    assert [str(p) for p in failed.value.problems] == [
        "items.csv line 2: field title: cannot be stored: it contains a NUL character (\\u0000)"
    ]
    huge = b"m2,Up,3,1\n" + b'm3,"' + b"x" * (csv.field_size_limit() + 10) + b'",3,1\n'
    with pytest.raises(ImportFailed) as failed:
        read_items(header + huge, "items.csv")
    assert [str(p) for p in failed.value.problems] == [
        f"items.csv line 3: a cell is longer than {csv.field_size_limit():,} characters, the "
        "most a CSV cell may hold; reading stopped here"
    ]
