"""Each task's response file read into typed answers, grouped by responder group.

The formats (docs/fidelity.md):

- items talk, JSONL: ``{"group", "responder", "mentions": [ids], "prompt_items": [ids]}``;
- binary preference, CSV: ``item,avg_rating,group,responder,answer`` (yes/no), with an
  optional ``n_ratings`` column for the frequency buckets;
- feedback, CSV: ``pair,group,responder,kind,answer``: kind positive or negative with answer
  accept or reject; or kind comparison with answer positive, negative or neither and a
  ``shown_first`` column (positive or negative);
- recommendation requests, JSONL: ``{"group", "text"}``, optionally ``"responder"`` (else each
  line is its own responder) and ``"embedding": [numbers]`` (on every line or none).

Every reader raises one `InputError` naming the first problem's line and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import numpy as np

from evalsite.fidelity.bin_pref import BinPrefAnswer
from evalsite.fidelity.common import FloatArray
from evalsite.fidelity.feedback import AcceptRejectAnswer, Choice, ComparisonAnswer
from evalsite.fidelity.files import (
    Problems,
    Row,
    choice_field,
    csv_rows,
    id_list_field,
    jsonl_rows,
    number_field,
    text_field,
)
from evalsite.fidelity.items_talk import ItemsTalkAnswer
from evalsite.fidelity.rec_request import RecRequestText

BIN_PREF_COLUMNS = ("item", "avg_rating", "group", "responder", "answer")
FEEDBACK_COLUMNS = ("pair", "group", "responder", "kind", "answer")


def read_items_talk(path: Path) -> dict[str, list[ItemsTalkAnswer]]:
    problems = Problems()
    groups: dict[str, list[ItemsTalkAnswer]] = {}
    for row in jsonl_rows(path):
        group = text_field(row, "group", problems)
        responder = text_field(row, "responder", problems)
        mentions = id_list_field(row, "mentions", problems)
        prompt_items = id_list_field(row, "prompt_items", problems)
        if group and responder and mentions is not None and prompt_items is not None:
            groups.setdefault(group, []).append(ItemsTalkAnswer(responder, mentions, prompt_items))
    problems.raise_if_any()
    return groups


@dataclass(frozen=True)
class BinPrefFile:
    groups: dict[str, list[BinPrefAnswer]]
    # Each item's number of ratings, when the file has an n_ratings column.
    n_ratings: dict[str, int] | None


def _n_ratings(row: Row, problems: Problems) -> int | None:
    count = number_field(row, "n_ratings", problems)
    if count is not None and (count < 0 or count != int(count)):
        problems.add(row.line, "n_ratings", f"{count:g} is not a whole number of ratings")
        return None
    return None if count is None else int(count)


def read_bin_pref(path: Path) -> BinPrefFile:
    problems = Problems()
    rows = csv_rows(path, BIN_PREF_COLUMNS)
    counted = "n_ratings" in rows[0].fields
    groups: dict[str, list[BinPrefAnswer]] = {}
    ratings: dict[str, tuple[float, int]] = {}
    counts: dict[str, int] = {}
    for row in rows:
        item = text_field(row, "item", problems)
        rating = number_field(row, "avg_rating", problems)
        group = text_field(row, "group", problems)
        responder = text_field(row, "responder", problems)
        answer = choice_field(row, "answer", ("yes", "no"), problems)
        if item and rating is not None:
            first = ratings.setdefault(item, (rating, row.line))
            if first[0] != rating:
                problems.add(
                    row.line,
                    "avg_rating",
                    f"{rating:g}, but line {first[1]} gives item {item} {first[0]:g}",
                )
        if counted and item:
            count = _n_ratings(row, problems)
            if count is not None and counts.setdefault(item, count) != count:
                problems.add(row.line, "n_ratings", f"item {item} has another count above")
        if item and rating is not None and group and responder and answer:
            groups.setdefault(group, []).append(
                BinPrefAnswer(item, rating, responder, answer == "yes")
            )
    problems.raise_if_any()
    return BinPrefFile(groups, counts if counted else None)


@dataclass(frozen=True)
class FeedbackFile:
    accept_reject: dict[str, list[AcceptRejectAnswer]] = field(default_factory=dict)
    comparisons: dict[str, list[ComparisonAnswer]] = field(default_factory=dict)


def read_feedback(path: Path) -> FeedbackFile:
    problems = Problems()
    read = FeedbackFile()
    for row in csv_rows(path, FEEDBACK_COLUMNS):
        pair = text_field(row, "pair", problems)
        group = text_field(row, "group", problems)
        responder = text_field(row, "responder", problems)
        kind = choice_field(row, "kind", ("positive", "negative", "comparison"), problems)
        if kind == "comparison":
            if "shown_first" not in row.fields:
                problems.add(row.line, "shown_first", "is needed by a comparison")
                continue
            choice = choice_field(row, "answer", ("positive", "negative", "neither"), problems)
            first = choice_field(row, "shown_first", ("positive", "negative"), problems)
            if pair and group and responder and choice and first:
                read.comparisons.setdefault(group, []).append(
                    ComparisonAnswer(responder, pair, cast(Choice, choice), first == "positive")
                )
        elif kind:
            answer = choice_field(row, "answer", ("accept", "reject"), problems)
            if pair and group and responder and answer:
                read.accept_reject.setdefault(group, []).append(
                    AcceptRejectAnswer(responder, pair, kind == "positive", answer == "accept")
                )
    problems.raise_if_any()
    return read


@dataclass(frozen=True)
class RecRequestFile:
    groups: dict[str, list[RecRequestText]]
    # Each group's embeddings, one row per text, when every line has one.
    embeddings: dict[str, FloatArray] | None


def _embedding(row: Row, problems: Problems) -> list[float] | None:
    value = row.fields["embedding"]
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)
    ):
        problems.add(row.line, "embedding", "must be a non-empty list of numbers")
        return None
    vector = [float(x) for x in value]
    if not any(vector):
        problems.add(row.line, "embedding", "is all zeros")
        return None
    return vector


def read_rec_request(path: Path) -> RecRequestFile:
    problems = Problems()
    rows = jsonl_rows(path)
    embedded = "embedding" in rows[0].fields
    groups: dict[str, list[RecRequestText]] = {}
    vectors: dict[str, list[list[float]]] = {}
    width: int | None = None
    for row in rows:
        group = text_field(row, "group", problems)
        text = text_field(row, "text", problems)
        responder = text_field(row, "responder", problems, required=False) or f"line {row.line}"
        vector = None
        if embedded != ("embedding" in row.fields):
            problems.add(row.line, "embedding", "must be on every line or on none")
        elif embedded:
            vector = _embedding(row, problems)
            width = width or (len(vector) if vector else None)
            if vector is not None and len(vector) != width:
                problems.add(row.line, "embedding", f"has {len(vector)} numbers, not {width}")
        if group and text and (vector is not None or not embedded):
            groups.setdefault(group, []).append(RecRequestText(responder, text))
            if vector is not None:
                vectors.setdefault(group, []).append(vector)
    problems.raise_if_any()
    if not embedded:
        return RecRequestFile(groups, None)
    return RecRequestFile(
        groups, {name: np.array(listed, dtype=np.float64) for name, listed in vectors.items()}
    )
