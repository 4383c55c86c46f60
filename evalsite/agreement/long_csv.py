"""Long-format scores (one row per score): the CSV reader, the checks before analysis, and
centring within groups (for pooled blocks)."""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from evalsite.agreement.common import InputError, check_level, joined

REQUIRED_COLUMNS = ("item", "rater", "score")
RESERVED_COLUMNS = (*REQUIRED_COLUMNS, "dimension")


def read_long_csv(path: str | Path, *, labels: bool = False) -> pd.DataFrame:
    """Read a long CSV of scores: columns item, rater, score, optionally dimension, metadata.

    Text columns stay text and scores become floats; with ``labels`` (for nominal data) scores
    stay text, to be read by `coded_labels`. The frame's index is each row's line number in the
    file, so that later errors can name it. Raises `InputError`.
    """
    records: list[list[str]] = []
    lines: list[int] = []
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, strict=True)
            header = [name.strip() for name in next(reader, [])]
            for row in reader:
                if row:
                    records.append(row)
                    lines.append(reader.line_num)
    except UnicodeDecodeError as error:
        raise InputError(f"the file is not CSV text (byte {error.start} is not UTF-8)") from error
    except csv.Error as error:
        raise InputError(f"line {reader.line_num}: not valid CSV ({error})") from error
    except OSError as error:
        raise InputError(f"the file cannot be read ({error.strerror})") from error
    _check_header(header)
    if not records:
        raise InputError("the file has a header but no rows of scores")
    for line, row in zip(lines, records, strict=True):
        if len(row) != len(header):
            raise InputError(f"line {line}: {len(row)} field(s), but the header has {len(header)}")
    frame = pd.DataFrame(records, columns=header, index=pd.Index(lines, name="line"))
    for column in ("item", "rater", *(["dimension"] if "dimension" in header else [])):
        blank = frame[column].str.strip() == ""
        if blank.any():
            raise InputError(f"line {frame.index[_first(blank)]}, column '{column}' is empty")
    if labels:
        frame["score"] = frame["score"].str.strip()
        return frame
    frame["score"] = [
        _parse_score(text, line) for text, line in zip(frame["score"], frame.index, strict=True)
    ]
    return frame


def coded_labels(
    long_frame: pd.DataFrame, level: str
) -> tuple[pd.DataFrame, tuple[str, ...] | None]:
    """Nominal scores as numbers: text labels become category codes, empty cells are dropped.

    At the nominal level every distinct non-empty text (``yes``, ``Positive``, ``n/a: problem
    is resolved``) is a category, and only an empty cell (or NaN) is missing. If every score
    reads as a number the scores stay numbers and no categories are returned; otherwise code k
    stands for the k-th label in sorted order, and the labels are returned. At other levels the
    frame is returned unchanged.
    """
    if level != "nominal" or "score" not in long_frame.columns:
        return long_frame, None
    text = long_frame["score"].map(lambda score: "" if pd.isna(score) else str(score).strip())
    frame = long_frame[text != ""].copy()
    text = text[text != ""]
    numbers = pd.to_numeric(text, errors="coerce")
    if numbers.notna().all() and np.isfinite(numbers).all():
        frame["score"] = numbers.astype(np.float64)
        return frame, None
    categories = tuple(sorted(set(text)))
    code = {label: float(position) for position, label in enumerate(categories)}
    frame["score"] = text.map(code).astype(np.float64)
    return frame, categories


def _check_header(header: list[str]) -> None:
    if not header or header == [""]:
        raise InputError(
            "the file is empty; its first line must be a header such as item,rater,score"
        )
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise InputError(f"line 1: the header repeats column '{repeated[0]}'")
    for column in REQUIRED_COLUMNS:
        if column not in header:
            shown = ",".join(header)
            if len(shown) > 80:
                shown = shown[:77] + "..."
            raise InputError(
                f"line 1: there is no '{column}' column; the header must name item, rater and "
                f"score (it reads: {shown})"
            )


def _parse_score(text: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"line {line}, column 'score': {text!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"line {line}, column 'score': {text!r} is not a finite number")
    return value


def _first(mask: pd.Series[bool]) -> int:
    """Position of the first True in a boolean column."""
    return int(np.argmax(mask.to_numpy()))


def _where(frame: pd.DataFrame, label: object) -> str:
    return f"{frame.index.name or 'row'} {label}"


def validated(
    long_frame: pd.DataFrame,
    *,
    level: str,
    scale: tuple[float, float] | None,
    by: Sequence[str],
    per_item: Sequence[str] = (),
) -> pd.DataFrame:
    """A checked copy of ``long_frame``: text columns as text, scores as finite floats, a
    "dimension" column (``all`` when absent), one score per (dimension, item, rater), scores
    within ``scale``, and one value per item of each ``by`` and ``per_item`` column (such as
    a cluster). Raises `InputError`."""
    check_level(level)
    for column in REQUIRED_COLUMNS:
        if column not in long_frame.columns:
            raise InputError(f"the scores have no '{column}' column")
    frame = long_frame.copy()
    if not frame.index.is_unique:
        frame = frame.reset_index(drop=True)
    text_columns = ["item", "rater", *(["dimension"] if "dimension" in frame.columns else [])]
    for column in text_columns:
        missing = frame[column].isna()
        if missing.any():
            raise InputError(f"{_where(frame, frame.index[_first(missing)])}: no {column}")
        frame[column] = frame[column].astype(str)
    has_dimension = "dimension" in frame.columns
    if not has_dimension:
        frame["dimension"] = "all"
    scores = pd.to_numeric(frame["score"], errors="coerce")
    bad = scores.isna() | ~np.isfinite(scores.fillna(0.0))
    if bad.any():
        position = _first(bad)
        raise InputError(
            f"{_where(frame, frame.index[position])}: score {frame['score'].iloc[position]!r} "
            "is not a number"
        )
    frame["score"] = scores.astype(np.float64)
    key = ["dimension", "item", "rater"]
    repeated = frame.duplicated(key, keep=False)
    if repeated.any():
        first = frame[repeated].iloc[0]
        labels = frame.index[
            repeated
            & (frame["dimension"] == first["dimension"])
            & (frame["item"] == first["item"])
            & (frame["rater"] == first["rater"])
        ]
        places = f"{frame.index.name or 'row'}s {joined([str(label) for label in labels])}"
        dimension = f" on dimension {first['dimension']}" if has_dimension else ""
        raise InputError(
            f"{places}: rater {first['rater']} scored item {first['item']} more than once"
            f"{dimension}"
        )
    if scale is not None:
        low, high = scale
        if not low < high:
            raise InputError(f"the scale {low:g}:{high:g} must run from a lower to a higher value")
        outside = (frame["score"] < low) | (frame["score"] > high)
        if outside.any():
            position = _first(outside)
            raise InputError(
                f"{_where(frame, frame.index[position])}: score "
                f"{float(frame['score'].iloc[position]):g} is outside the "
                f"scale {low:g}:{high:g}"
            )
    if level == "ratio" and (frame["score"] < 0).any():
        position = _first(frame["score"] < 0)
        raise InputError(
            f"{_where(frame, frame.index[position])}: score "
            f"{float(frame['score'].iloc[position]):g} is negative, but "
            "ratio-level scores cannot be"
        )
    for column in by:
        _check_item_column(frame, column, "to break down by", "a breakdown")
    for column in per_item:
        if column not in by:
            _check_item_column(frame, column, "that labels items", "such a column")
    return frame


def _check_item_column(frame: pd.DataFrame, column: str, purpose: str, needs: str) -> None:
    if column in RESERVED_COLUMNS or column not in frame.columns:
        metadata = [name for name in frame.columns if name not in RESERVED_COLUMNS]
        listed = ", ".join(str(name) for name in metadata) or "none"
        raise InputError(
            f"there is no metadata column '{column}' {purpose} (metadata columns: {listed})"
        )
    frame[column] = frame[column].astype(str)
    spread = frame.groupby(["dimension", "item"])[column].nunique()
    if (spread > 1).any():
        dimension, item = spread.index[_first(spread > 1)]
        found = sorted(
            frame.loc[(frame["dimension"] == dimension) & (frame["item"] == item), column].unique()
        )
        raise InputError(
            f"item {item} has more than one value of '{column}' ({', '.join(found)}); "
            f"{needs} needs one value per item"
        )


def centred_within(frame: pd.DataFrame, within: str) -> pd.DataFrame:
    """Each score minus the mean of every score (all raters) with its dimension and ``within``.

    A shift shared by all raters of an item leaves each item's differences, and so MAE, the
    agreement rates and the alt-test, unchanged; it removes what differing means between the
    ``within`` groups add to α and the correlations.
    """
    keys = ["dimension"] if within == "dimension" else ["dimension", within]
    means = frame.groupby(keys, sort=False)["score"].transform("mean")
    return frame.assign(score=frame["score"] - means)
