from __future__ import annotations

import pytest

from annotation.imports.problems import ImportFailed
from fidelity.imports import read_items, read_requests, store_items
from fidelity.models import Study


def test_items_are_read_with_their_ratings() -> None:
    rows = read_items(
        b"item_id,title,avg_rating,n_ratings\nm1,Heat,4.5,9000\n\nm2,Up,3,12\n", "i.csv"
    )
    assert [(r.item_id, r.title, r.avg_rating, r.n_ratings) for r in rows] == [
        ("m1", "Heat", 4.5, 9000),
        ("m2", "Up", 3.0, 12),
    ]


def test_every_bad_item_row_names_file_line_and_field() -> None:
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


def test_a_missing_column_is_named() -> None:
    with pytest.raises(ImportFailed, match="the header lacks n_ratings"):
        read_items(b"item_id,title,avg_rating\nm1,Heat,4\n", "items.csv")


def test_requests_are_read_and_problems_located() -> None:
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
def test_a_bad_file_leaves_the_study_as_it_was() -> None:
    study = Study.objects.create(name="s")
    store_items(study, read_items(b"item_id,title,avg_rating,n_ratings\nm1,Heat,4.5,9\n", "a.csv"))
    with pytest.raises(ImportFailed):
        store_items(study, read_items(b"item_id,title,avg_rating,n_ratings\nm2,Up,x,1\n", "b.csv"))
    assert list(study.items.values_list("item_id", flat=True)) == ["m1"]
