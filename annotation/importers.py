"""Transcript and LLM-score imports: read, validate everything, then write in one transaction.

Every reader streams its input (one line, one CSV row or one dialogue file at a time) and
turns it into the transcript shape of ``docs/import-formats.md``. Each row is validated
and spooled, already in database shape, to a temporary file; only when the whole input is
valid does the writer open one transaction and upsert the spooled rows in batches, keyed by
(campaign, external id). So memory stays bounded by one batch, the database's write lock is
held only while writing, and one bad row means nothing is written.

Problems name the file, the line (or row) and the field, e.g.
``transcripts.jsonl line 17: turns[3].role must be 'user' or 'system'``.
"""

from __future__ import annotations

import csv
import functools
import json
import math
import pickle
import random
import re
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any, cast

import psycopg
from django.db import connection, transaction
from django.db.models import Field, JSONField, Max, Model
from django.utils import timezone

from annotation.models import Campaign, Dimension, LLMScore, Rubric, Transcript
from annotation.rubrics import default_rubric

Progress = Callable[[int, int, str], None]

FORMATS = ("jsonl", "csv", "concept4crs")
SCORE_FORMATS = ("jsonl", "csv")
MAX_PROBLEMS = 50
BATCH_SIZE = 1000
PROGRESS_EVERY = 500
ACCEPTANCE_MARK = "[END]"

_TURN_ROLES = ("user", "system")
_TURN_FIELDS = {
    "role",
    "text",
    "items",
    "success",
    "feelings",
    "entity",
    "rec_items",
    "rec_success_dialogue",
    "rec_success_rec",
}
_DIALOGUE_FIELDS = {
    "id",
    "kind",
    "system",
    "dataset",
    "lang",
    "persona",
    "preferences",
    "turns",
    "outcome",
    "llm_scores",
    "gold",
    "metadata",
}
_PAIRWISE_FIELDS = (_DIALOGUE_FIELDS - {"turns", "outcome"}) | {"context", "a", "b"}
_MAX_LENGTHS = {"id": 255, "system": 100, "dataset": 100, "lang": 16}
# Fields a re-import overwrites; the queue's own fields (position, counts) are kept.
_UPDATED_FIELDS = [
    "kind",
    "system",
    "dataset",
    "lang",
    "persona_emotion",
    "persona_age_group",
    "persona_text",
    "preferences",
    "turns",
    "response_a",
    "response_b",
    "accepted",
    "accepted_items",
    "accepted_turn",
    "metadata",
    "gold",
    "imported_at",
]
_CONCEPT_FILE = re.compile(
    r"^(?P<dialog>\d+)_(?P<turn>\d+)_profile(?P<profile>\d+)_attribute(?P<attribute>\d+)\.json$"
)
_PERSONA_NAME = re.compile(r"^(?P<emotion>.+?)---Age group=(?P<age>.+)$")
_QUOTED_TITLE = re.compile(r"[\"“]([^\"“”\n]{2,100})[\"”]")


# Problems ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One reason an input cannot be imported, located as precisely as the format allows."""

    source: str
    message: str
    line: int | None = None
    unit: str = "line"

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.source}: {self.message}"
        return f"{self.source} {self.unit} {self.line}: {self.message}"


class ImportFailed(Exception):
    """The input holds problems; nothing was written."""

    def __init__(self, problems: list[Problem], total: int | None = None) -> None:
        self.problems = problems
        self.total = total if total is not None else len(problems)
        super().__init__(self.summary)

    @property
    def summary(self) -> str:
        lines = [str(problem) for problem in self.problems]
        if self.total > len(self.problems):
            lines.append(f"… and {self.total - len(self.problems)} more problems")
        return "\n".join(lines)


class FieldError(ValueError):
    """A field of one row is invalid; ``path`` names it as in the JSON shape."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path} {message}" if path else message)


class _Problems:
    """Collects problems, keeping the first `MAX_PROBLEMS` and counting the rest."""

    def __init__(self) -> None:
        self.kept: list[Problem] = []
        self.total = 0

    def add(self, problem: Problem) -> None:
        self.total += 1
        if len(self.kept) < MAX_PROBLEMS:
            self.kept.append(problem)

    def raise_if_any(self) -> None:
        if self.total:
            raise ImportFailed(self.kept, self.total)


@dataclass
class ImportResult:
    transcripts: int = 0
    created: int = 0
    updated: int = 0
    llm_scores: int = 0
    ignored_files: int = 0
    validate_seconds: float = 0.0
    lock_seconds: float = 0.0
    campaign_created: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "transcripts": self.transcripts,
            "created": self.created,
            "updated": self.updated,
            "llm_scores": self.llm_scores,
            "ignored_files": self.ignored_files,
            "validate_seconds": round(self.validate_seconds, 3),
            "lock_seconds": round(self.lock_seconds, 3),
            "campaign_created": self.campaign_created,
        }


# Field checks -------------------------------------------------------------------------------


def _join(path: str, name: str | int) -> str:
    if isinstance(name, int):
        return f"{path}[{name}]"
    return f"{path}.{name}" if path else name


def _string(value: Any, path: str, *, required: bool = False, max_length: int = 0) -> str:
    if value is None:
        if required:
            raise FieldError(path, "is required")
        return ""
    if not isinstance(value, str):
        raise FieldError(path, "must be a string")
    if required and not value.strip():
        raise FieldError(path, "must not be empty")
    if max_length and len(value) > max_length:
        raise FieldError(path, f"must be at most {max_length} characters")
    return value


def _identifier(value: Any, path: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return _string(value, path, required=True, max_length=_MAX_LENGTHS["id"]).strip()


def _boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise FieldError(path, "must be true or false")
    return value


def _strings(value: Any, path: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise FieldError(path, "must be a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise FieldError(_join(path, index), "must be a string")
    return list(value)


def _number(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FieldError(path, "must be a number")
    if not math.isfinite(value):
        raise FieldError(path, "must be a finite number")
    return float(value)


def _object(value: Any, path: str, allowed: set[str] | None = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FieldError(path, "must be an object")
    if allowed is not None:
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise FieldError(_join(path, unknown[0]), "is not a known field")
    return value


def _turn(value: Any, path: str) -> dict[str, Any]:
    data = _object(value, path, _TURN_FIELDS)
    role = data.get("role")
    if role not in _TURN_ROLES:
        raise FieldError(_join(path, "role"), "must be 'user' or 'system'")
    if "text" not in data:
        raise FieldError(_join(path, "text"), "is required")
    turn: dict[str, Any] = {"role": role, "text": _string(data["text"], _join(path, "text"))}
    for name in ("items", "entity"):
        if name in data:
            turn[name] = _strings(data[name], _join(path, name))
    for name in ("success", "rec_success_dialogue", "rec_success_rec"):
        if name in data:
            turn[name] = _boolean(data[name], _join(path, name))
    if "feelings" in data:
        turn["feelings"] = _string(data["feelings"], _join(path, "feelings"))
    if "rec_items" in data:
        items = data["rec_items"]
        if not isinstance(items, list) or not all(
            isinstance(i, str | int) and not isinstance(i, bool) for i in items
        ):
            raise FieldError(_join(path, "rec_items"), "must be a list of item ids")
        turn["rec_items"] = items
    return turn


def _turns(value: Any, path: str, *, allow_empty: bool) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise FieldError(path, "must be a list of turns")
    if not value and not allow_empty:
        raise FieldError(path, "must hold at least one turn")
    return [_turn(item, _join(path, index)) for index, item in enumerate(value)]


def _response(value: Any, path: str) -> dict[str, str]:
    data = _object(value, path, {"system", "text"})
    return {
        "system": _string(data.get("system"), _join(path, "system"), max_length=100),
        "text": _string(data.get("text"), _join(path, "text"), required=True),
    }


class TranscriptValidator:
    """Checks one transcript in the shape of ``docs/import-formats.md`` against a rubric."""

    def __init__(self, rubric: Rubric) -> None:
        self.dimensions: dict[str, Dimension] = {d.key: d for d in rubric.dimensions.all()}

    def _dimension(self, key: Any, path: str, kind: str) -> Dimension:
        dimension = self.dimensions.get(key) if isinstance(key, str) else None
        if dimension is None:
            raise FieldError(path, f"{key!r} is not a dimension of this campaign's rubric")
        if (dimension.kind == Dimension.Kind.PAIRWISE) != (kind == Transcript.Kind.PAIRWISE):
            raise FieldError(path, f"{key!r} is not asked about {kind} items")
        return dimension

    def _scale(self, dimension: Dimension, value: float, path: str) -> None:
        if not dimension.in_scale(value):
            raise FieldError(
                path,
                f"{value:g} is outside the scale of {dimension.key!r} "
                f"({dimension.scale_min}–{dimension.scale_max})",
            )

    def _gold(self, value: Any, kind: str) -> dict[str, int]:
        gold: dict[str, int] = {}
        for key, answer in _object(value, "gold").items():
            path = _join("gold", key)
            dimension = self._dimension(key, path, kind)
            if isinstance(answer, bool) or not isinstance(answer, int):
                raise FieldError(path, "must be an integer answer")
            self._scale(dimension, answer, path)
            gold[key] = answer
        return gold

    def _llm_scores(self, value: Any, kind: str) -> list[tuple[str, str, float, str]]:
        if not isinstance(value, list):
            raise FieldError("llm_scores", "must be a list")
        scores: list[tuple[str, str, float, str]] = []
        seen: set[tuple[str, str]] = set()
        for index, entry in enumerate(value):
            path = _join("llm_scores", index)
            data = _object(entry, path, {"evaluator", "dimension", "score", "rationale"})
            evaluator = _string(
                data.get("evaluator"), _join(path, "evaluator"), required=True, max_length=100
            )
            dimension = self._dimension(data.get("dimension"), _join(path, "dimension"), kind)
            score = _number(data.get("score"), _join(path, "score"))
            self._scale(dimension, score, _join(path, "score"))
            if (evaluator, dimension.key) in seen:
                raise FieldError(path, f"repeats {evaluator}'s score for {dimension.key!r}")
            seen.add((evaluator, dimension.key))
            rationale = _string(data.get("rationale"), _join(path, "rationale"))
            scores.append((dimension.key, evaluator, score, rationale))
        return scores

    def validate(self, value: Any) -> tuple[dict[str, Any], list[tuple[str, str, float, str]]]:
        """The transcript's model fields and its LLM scores; raises `FieldError`."""
        if not isinstance(value, dict):
            raise FieldError("", "must be a JSON object")
        kind = value.get("kind", Transcript.Kind.DIALOGUE)
        if kind not in Transcript.Kind.values:
            raise FieldError("kind", "must be 'dialogue' or 'pairwise'")
        pairwise = kind == Transcript.Kind.PAIRWISE
        _object(value, "", _PAIRWISE_FIELDS if pairwise else _DIALOGUE_FIELDS)
        row: dict[str, Any] = {"external_id": _identifier(value.get("id"), "id"), "kind": kind}
        for name in ("system", "dataset", "lang"):
            row[name] = _string(value.get(name), name, max_length=_MAX_LENGTHS[name])
        persona = _object(value.get("persona") or {}, "persona", {"emotion", "age_group", "text"})
        row["persona_emotion"] = _string(persona.get("emotion"), "persona.emotion", max_length=64)
        row["persona_age_group"] = _string(
            persona.get("age_group"), "persona.age_group", max_length=64
        )
        row["persona_text"] = _string(persona.get("text"), "persona.text")
        row["preferences"] = _strings(value.get("preferences"), "preferences")
        row["metadata"] = _object(value.get("metadata") or {}, "metadata")
        if pairwise:
            row["turns"] = _turns(value.get("context", []), "context", allow_empty=True)
            row["response_a"] = _response(value.get("a"), "a")
            row["response_b"] = _response(value.get("b"), "b")
            row.update(accepted=None, accepted_items=[], accepted_turn=None)
        else:
            if "turns" not in value:
                raise FieldError("turns", "is required")
            row["turns"] = _turns(value["turns"], "turns", allow_empty=False)
            row.update(response_a=None, response_b=None)
            row.update(self._outcome(value.get("outcome"), len(row["turns"])))
        row["gold"] = self._gold(value.get("gold") or {}, kind)
        scores = self._llm_scores(value.get("llm_scores") or [], kind)
        return row, scores

    def _outcome(self, value: Any, turn_count: int) -> dict[str, Any]:
        if value is None:
            return {"accepted": None, "accepted_items": [], "accepted_turn": None}
        data = _object(value, "outcome", {"accepted", "accepted_items", "turn"})
        accepted = data.get("accepted")
        if accepted is not None:
            accepted = _boolean(accepted, "outcome.accepted")
        turn = data.get("turn")
        if turn is not None:
            if isinstance(turn, bool) or not isinstance(turn, int):
                raise FieldError("outcome.turn", "must be a turn number or null")
            if not 1 <= turn <= turn_count:
                raise FieldError("outcome.turn", f"must be between 1 and {turn_count}")
        return {
            "accepted": accepted,
            "accepted_items": _strings(data.get("accepted_items"), "outcome.accepted_items"),
            "accepted_turn": turn,
        }


# Spooling and writing -----------------------------------------------------------------------


@dataclass
class _Spool:
    """Validated rows, pickled in batches to a temporary file until the write."""

    file: IO[bytes] = field(default_factory=lambda: tempfile.TemporaryFile())  # noqa: SIM115
    batch: list[Any] = field(default_factory=list)
    count: int = 0

    def add(self, row: Any) -> None:
        self.batch.append(row)
        self.count += 1
        if len(self.batch) >= BATCH_SIZE:
            self.flush()

    def flush(self) -> None:
        if self.batch:
            pickle.dump(self.batch, self.file, protocol=pickle.HIGHEST_PROTOCOL)
            self.batch = []

    def batches(self) -> Iterator[list[Any]]:
        self.flush()
        self.file.seek(0)
        while True:
            try:
                yield pickle.load(self.file)
            except EOFError:
                return

    def close(self) -> None:
        self.file.close()


class _Upsert:
    """``INSERT … ON CONFLICT (…) DO UPDATE`` for rows whose values were prepared earlier.

    ``bulk_create`` spends most of its time turning every value into a query parameter
    (20 s of lock for 100,000 transcripts on SQLite). Preparing the parameters while
    validating, outside the transaction, leaves the transaction nothing but the inserts.
    """

    def __init__(
        self, model: type[Model], fields: list[str], unique: list[str], update: list[str]
    ) -> None:
        self.model = model
        self.fields: list[Field[Any, Any]] = [
            cast("Field[Any, Any]", model._meta.get_field(name)) for name in fields
        ]
        self.unique = unique
        self.update = update

    def prepare(self, values: Iterable[Any]) -> tuple[Any, ...]:
        prepared = []
        for model_field, value in zip(self.fields, values, strict=True):
            if isinstance(model_field, JSONField):
                prepared.append(None if value is None else json.dumps(value))
            else:
                prepared.append(model_field.get_db_prep_save(value, connection))
        return tuple(prepared)

    def execute(self, rows: list[tuple[Any, ...]], constants: Mapping[str, int]) -> None:
        """Upsert ``rows``; ``constants`` are integer columns shared by every row."""
        if not rows:
            return
        quote = connection.ops.quote_name
        column = {f.name: f.column for f in self.model._meta.concrete_fields}
        names = [quote(f.column) for f in self.fields] + [quote(column[n]) for n in constants]
        fixed = [str(int(value)) for value in constants.values()]
        updates = ", ".join(
            f"{quote(column[n])} = EXCLUDED.{quote(column[n])}" for n in self.update
        )
        head = f"INSERT INTO {quote(self.model._meta.db_table)} ({', '.join(names)}) "
        tail = (
            f" ON CONFLICT ({', '.join(quote(column[n]) for n in self.unique)}) "
            f"DO UPDATE SET {updates}"
        )
        if connection.vendor != "postgresql":
            placeholders = ", ".join(["%s"] * len(self.fields) + fixed)
            with connection.cursor() as cursor:
                cursor.executemany(f"{head}VALUES ({placeholders}){tail}", rows)
            return
        # A statement per row costs PostgreSQL a parse and plan each (about 0.1 ms, 10 s per
        # 100,000 transcripts). Instead the batch goes as one array per column, in binary
        # (%b: Django's cursors would quote every element as text), inserted as one set.
        arrays = ", ".join(f"%b::{f.db_type(connection)}[]" for f in self.fields)
        selected = ", ".join(["*", *fixed])
        connection.ensure_connection()
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(
                f"{head}SELECT {selected} FROM unnest({arrays}){tail}",
                [list(values) for values in zip(*rows, strict=True)],
            )


# The row's place in the input comes first; the writer turns it into a position after the
# campaign's last one, which only new transcripts take (a re-import keeps positions).
_TRANSCRIPT_UPSERT = _Upsert(
    Transcript,
    ["position", "external_id", *_UPDATED_FIELDS, "shuffle_key"],
    unique=["campaign", "external_id"],
    update=_UPDATED_FIELDS,
)
_SCORE_UPSERT = _Upsert(
    LLMScore,
    ["transcript", "dimension", "evaluator", "score", "rationale", "imported_at"],
    unique=["transcript", "dimension", "evaluator"],
    update=["score", "rationale", "imported_at"],
)


class _TranscriptBatchWriter:
    """Collects validated transcripts, prepared for the database; checks ids repeat nowhere."""

    def __init__(self, rubric: Rubric) -> None:
        self.validator = TranscriptValidator(rubric)
        self.dimensions = {d.key: d.pk for d in rubric.dimensions.all()}
        self.spool = _Spool()
        self.scores = _Spool()
        self.first_seen: dict[str, str] = {}
        self.now = timezone.now()
        self.shuffle = random.Random()

    def add(self, value: Any, where: str) -> None:
        row, scores = self.validator.validate(value)
        external_id = row["external_id"]
        if external_id in self.first_seen:
            raise FieldError("id", f"{external_id!r} repeats {self.first_seen[external_id]}")
        self.first_seen[external_id] = where
        row["imported_at"] = self.now
        self.spool.add(
            _TRANSCRIPT_UPSERT.prepare(
                [
                    self.spool.count + 1,
                    external_id,
                    *(row[name] for name in _UPDATED_FIELDS),
                    self.shuffle.randrange(2**31),
                ]
            )
        )
        for key, evaluator, score, rationale in scores:
            prepared = _SCORE_UPSERT.prepare(
                [None, self.dimensions[key], evaluator, score, rationale, self.now]
            )
            self.scores.add((external_id, *prepared[1:]))

    def close(self) -> None:
        self.spool.close()
        self.scores.close()


def _resolve_campaign(name: str) -> tuple[Campaign | None, Rubric]:
    campaign = Campaign.objects.select_related("rubric").filter(name=name).first()
    if campaign is not None:
        return campaign, campaign.rubric
    return None, default_rubric()


def _write_transcripts(
    campaign_name: str, rubric: Rubric, writer: _TranscriptBatchWriter, result: ImportResult
) -> Campaign:
    """Upsert every spooled transcript, and its LLM scores, in one transaction."""
    started = time.perf_counter()
    with transaction.atomic():
        campaign, result.campaign_created = Campaign.objects.get_or_create(
            name=campaign_name, defaults={"rubric": rubric}
        )
        before = campaign.transcripts.count()
        last = campaign.transcripts.aggregate(last=Max("position"))["last"] or 0
        constants = {"campaign": campaign.pk, "active_count": 0}
        for batch in writer.spool.batches():
            _TRANSCRIPT_UPSERT.execute([(last + row[0], *row[1:]) for row in batch], constants)
        if writer.scores.count:
            ids = dict(campaign.transcripts.values_list("external_id", "pk"))
            for batch in writer.scores.batches():
                _SCORE_UPSERT.execute([(ids[row[0]], *row[1:]) for row in batch], {})
        result.created = campaign.transcripts.count() - before
    result.lock_seconds = time.perf_counter() - started
    result.transcripts = writer.spool.count
    result.updated = result.transcripts - result.created
    result.llm_scores = writer.scores.count
    return campaign


def _import_validated(
    campaign_name: str,
    rubric: Rubric,
    writer: _TranscriptBatchWriter,
    problems: _Problems,
    result: ImportResult,
    progress: Progress | None,
    validated_units: int,
    validate_started: float,
) -> ImportResult:
    try:
        problems.raise_if_any()
        if writer.spool.count == 0:
            raise ImportFailed([Problem("input", "holds no transcripts")])
        result.validate_seconds = time.perf_counter() - validate_started
        total = validated_units + writer.spool.count
        if progress is not None:
            progress(validated_units, total, f"Writing {writer.spool.count} transcripts")
        _write_transcripts(campaign_name, rubric, writer, result)
        if progress is not None:
            progress(total, total, f"Imported {result.transcripts} transcripts")
        return result
    finally:
        writer.close()


def _line_count(path: Path) -> int:
    count = 0
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            count += chunk.count(b"\n")
    return count + 1


def _report(progress: Progress | None, done: int, estimate: int, message: str) -> None:
    if progress is not None and done % PROGRESS_EVERY == 0:
        progress(done, max(estimate, done + 1), message)


# Transcript formats -------------------------------------------------------------------------


def import_rows(
    campaign: Campaign | str,
    rows: Iterable[Mapping[str, Any]],
    *,
    source: str = "rows",
    progress: Progress | None = None,
) -> ImportResult:
    """Import already-parsed transcripts (the JSONL shape) into ``campaign``, all or nothing.

    The entry point for other apps that produce transcripts themselves; problems are
    reported as ``<source> row N: <field> ...``.
    """
    name = campaign.name if isinstance(campaign, Campaign) else campaign
    _, rubric = _resolve_campaign(name)
    writer = _TranscriptBatchWriter(rubric)
    problems = _Problems()
    started = time.perf_counter()
    count = 0
    for count, row in enumerate(rows, start=1):
        try:
            writer.add(dict(row), f"row {count}")
        except FieldError as exc:
            problems.add(Problem(source, str(exc), count, unit="row"))
    return _import_validated(
        name, rubric, writer, problems, ImportResult(), progress, count, started
    )


def import_jsonl(
    path: str | Path, campaign: str, *, progress: Progress | None = None
) -> ImportResult:
    """One transcript per line; blank lines are allowed."""
    path = Path(path)
    _, rubric = _resolve_campaign(campaign)
    writer = _TranscriptBatchWriter(rubric)
    problems = _Problems()
    started = time.perf_counter()
    estimate = _line_count(path)
    line_no = 0
    with path.open(encoding="utf-8-sig") as handle:
        for line_no, line in enumerate(handle, start=1):
            _report(progress, line_no, 2 * estimate, f"Checking line {line_no}")
            if not line.strip():
                continue
            try:
                value = json.loads(line.rstrip("\r\n"))
            except json.JSONDecodeError as exc:
                problems.add(
                    Problem(path.name, f"not valid JSON ({exc.msg}, column {exc.colno})", line_no)
                )
                continue
            try:
                writer.add(value, f"line {line_no}")
            except FieldError as exc:
                problems.add(Problem(path.name, str(exc), line_no))
    return _import_validated(
        campaign, rubric, writer, problems, ImportResult(), progress, line_no, started
    )


_CSV_REQUIRED = ("id", "turn", "role", "text")
_CSV_TRANSCRIPT_COLUMNS = (
    "system",
    "dataset",
    "lang",
    "persona_emotion",
    "persona_age_group",
    "persona_text",
    "preferences",
    "accepted",
    "accepted_items",
    "accepted_turn",
    "metadata",
)
_CSV_TURN_COLUMNS = ("items", "success", "feelings")
_CSV_COLUMNS = {*_CSV_REQUIRED, *_CSV_TRANSCRIPT_COLUMNS, *_CSV_TURN_COLUMNS}
# Where a field of the JSON shape comes from in the CSV, for messages.
_CSV_FIELD_COLUMNS = {
    "id": "id",
    "system": "system",
    "dataset": "dataset",
    "lang": "lang",
    "persona.emotion": "persona_emotion",
    "persona.age_group": "persona_age_group",
    "persona.text": "persona_text",
    "preferences": "preferences",
    "outcome.accepted": "accepted",
    "outcome.accepted_items": "accepted_items",
    "outcome.turn": "accepted_turn",
    "metadata": "metadata",
}
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


def _csv_list(text: str) -> list[str]:
    return [part.strip() for part in text.split("|") if part.strip()]


def _csv_bool(text: str, column: str) -> bool | None:
    value = text.strip().lower()
    if not value:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise FieldError(column, "must be true or false (or empty)")


@dataclass
class _CsvTranscript:
    external_id: str
    first_line: int
    values: dict[str, str] = field(default_factory=dict)
    value_lines: dict[str, int] = field(default_factory=dict)
    turns: list[dict[str, Any]] = field(default_factory=list)

    def as_json_shape(self) -> dict[str, Any]:
        values = self.values
        shape: dict[str, Any] = {"id": self.external_id, "turns": self.turns}
        for name in ("system", "dataset", "lang"):
            if name in values:
                shape[name] = values[name]
        persona = {
            key: values[column]
            for key, column in (
                ("emotion", "persona_emotion"),
                ("age_group", "persona_age_group"),
                ("text", "persona_text"),
            )
            if column in values
        }
        if persona:
            shape["persona"] = persona
        if "preferences" in values:
            shape["preferences"] = _csv_list(values["preferences"])
        if "metadata" in values:
            try:
                shape["metadata"] = json.loads(values["metadata"])
            except json.JSONDecodeError as exc:
                raise FieldError("metadata", f"must be a JSON object ({exc.msg})") from None
        if {"accepted", "accepted_items", "accepted_turn"} & set(values):
            turn_text = values.get("accepted_turn", "").strip()
            if turn_text and not turn_text.isdigit():
                raise FieldError("outcome.turn", "must be a turn number or empty")
            shape["outcome"] = {
                "accepted": _csv_bool(values.get("accepted", ""), "outcome.accepted"),
                "accepted_items": _csv_list(values.get("accepted_items", "")),
                "turn": int(turn_text) if turn_text else None,
            }
        return shape


def import_csv(
    path: str | Path, campaign: str, *, progress: Progress | None = None
) -> ImportResult:
    """One row per turn; the rows of a transcript are contiguous and numbered from 1."""
    path = Path(path)
    _, rubric = _resolve_campaign(campaign)
    writer = _TranscriptBatchWriter(rubric)
    problems = _Problems()
    started = time.perf_counter()
    estimate = _line_count(path)
    rows_read = 0
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise ImportFailed([Problem(path.name, "is empty")])
        columns = [name.strip() for name in header]
        missing = [name for name in _CSV_REQUIRED if name not in columns]
        unknown = [name for name in columns if name not in _CSV_COLUMNS]
        if missing or unknown:
            message = (
                f"missing column {missing[0]!r}" if missing else f"unknown column {unknown[0]!r}"
            )
            raise ImportFailed([Problem(path.name, message, 1)])
        current: _CsvTranscript | None = None
        broken = False
        finished: dict[str, int] = {}

        def close(transcript: _CsvTranscript | None, is_broken: bool) -> None:
            if transcript is None:
                return
            finished[transcript.external_id] = transcript.first_line
            if is_broken:
                return
            try:
                writer.add(transcript.as_json_shape(), f"line {transcript.first_line}")
            except FieldError as exc:
                column = _CSV_FIELD_COLUMNS.get(exc.path, exc.path)
                line = transcript.value_lines.get(column, transcript.first_line)
                problems.add(Problem(path.name, f"{column} {exc.message}", line))

        line_no = reader.line_num + 1
        for record in reader:
            record_line, line_no = line_no, reader.line_num + 1
            rows_read += 1
            _report(progress, rows_read, 2 * estimate, f"Checking line {record_line}")
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(columns):
                problems.add(
                    Problem(
                        path.name,
                        f"has {len(record)} cells; the header has {len(columns)}",
                        record_line,
                    )
                )
                continue
            cells = dict(zip(columns, record, strict=True))
            external_id = cells["id"].strip()
            if current is None or external_id != current.external_id:
                close(current, broken)
                current, broken = None, False
                if not external_id:
                    problems.add(Problem(path.name, "id must not be empty", record_line))
                    broken = True
                    continue
                if external_id in finished:
                    problems.add(
                        Problem(
                            path.name,
                            f"id {external_id!r} continues after other rows; the rows of a "
                            f"transcript must be contiguous (it began on line "
                            f"{finished[external_id]})",
                            record_line,
                        )
                    )
                    broken = True
                    continue
                current = _CsvTranscript(external_id, record_line)
            if broken:
                continue
            try:
                _csv_turn(current, cells, record_line)
            except FieldError as exc:
                problems.add(Problem(path.name, str(exc), record_line))
                broken = True
        close(current, broken)
    return _import_validated(
        campaign, rubric, writer, problems, ImportResult(), progress, rows_read, started
    )


def _csv_turn(transcript: _CsvTranscript, cells: dict[str, str], line: int) -> None:
    expected = len(transcript.turns) + 1
    if cells["turn"].strip() != str(expected):
        raise FieldError("turn", f"must be {expected} (turns are numbered from 1, in order)")
    role = cells["role"].strip()
    if role not in _TURN_ROLES:
        raise FieldError("role", "must be 'user' or 'system'")
    turn: dict[str, Any] = {"role": role, "text": cells["text"]}
    if cells.get("items", "").strip():
        turn["items"] = _csv_list(cells["items"])
    success = _csv_bool(cells.get("success", ""), "success")
    if success is not None:
        turn["success"] = success
    if cells.get("feelings", "").strip():
        turn["feelings"] = cells["feelings"]
    for column in _CSV_TRANSCRIPT_COLUMNS:
        value = cells.get(column, "")
        if not value.strip():
            continue
        known = transcript.values.get(column)
        if known is None:
            transcript.values[column] = value
            transcript.value_lines[column] = line
        elif known != value:
            raise FieldError(
                column,
                f"is {value!r} here but {known!r} on line {transcript.value_lines[column]}; "
                f"a transcript's rows must agree",
            )
    transcript.turns.append(turn)


# Concept4CRS --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Persona:
    emotion: str
    age_group: str


def read_personas(path: str | Path) -> dict[int, Persona]:
    """CONCEPT's ``personas.csv``: ``Emotion---Age group=X,id,template,paraphrase``, no header."""
    path = Path(path)
    personas: dict[int, Persona] = {}
    problems = _Problems()
    with path.open(encoding="utf-8-sig", newline="") as handle:
        for line_no, record in enumerate(csv.reader(handle), start=1):
            if not any(cell.strip() for cell in record):
                continue
            if len(record) < 2:
                problems.add(Problem(path.name, "needs the persona name and its id", line_no))
                continue
            match = _PERSONA_NAME.match(record[0].strip())
            if match is None:
                problems.add(
                    Problem(
                        path.name,
                        "the first cell must read 'Emotion---Age group=Group'",
                        line_no,
                    )
                )
                continue
            if not record[1].strip().isdigit():
                problems.add(Problem(path.name, "the id (second cell) must be a number", line_no))
                continue
            personas[int(record[1])] = Persona(match["emotion"].strip(), match["age"].strip())
    problems.raise_if_any()
    return personas


@dataclass(frozen=True)
class _DialogueFile:
    relative: str
    read: Callable[[], bytes]


def _nothing_to_close() -> None:
    return None


def _concept_files(source: Path) -> tuple[list[_DialogueFile], int, Callable[[], None]]:
    """The dialogue files of a Concept4CRS directory or zip, the number ignored, and a closer."""
    candidates: list[tuple[str, Callable[[], bytes]]] = []
    closer: Callable[[], None] = _nothing_to_close
    if source.is_dir():
        for file in sorted(source.rglob("*.json")):
            candidates.append((file.relative_to(source).as_posix(), file.read_bytes))
    elif zipfile.is_zipfile(source):
        archive = zipfile.ZipFile(source)
        closer = archive.close
        for name in sorted(archive.namelist()):
            if name.endswith(".json") and not name.endswith("/"):
                candidates.append((name, functools.partial(archive.read, name)))
    else:
        raise ImportFailed([Problem(source.name, "must be a directory or a .zip file")])
    files = [
        _DialogueFile(relative, read)
        for relative, read in candidates
        if _CONCEPT_FILE.match(PurePosixPath(relative).name)
    ]
    return files, len(candidates) - len(files), closer


def _accepted_items(turns: list[dict[str, Any]], accepting: int) -> list[str]:
    """What the user accepted: the items the system named last, found in its text if need be."""
    for index in range(accepting - 1, -1, -1):
        turn = turns[index]
        if turn["role"] != "system":
            continue
        if turn.get("items"):
            return list(turn["items"])
        quoted = _QUOTED_TITLE.findall(turn["text"])
        if quoted:
            return list(dict.fromkeys(title.strip().rstrip(".,") for title in quoted))
        break
    return list(dict.fromkeys(_QUOTED_TITLE.findall(turns[accepting]["text"])))


def concept_dialogue(
    data: Any, relative: str, personas: Mapping[int, Persona] | None
) -> dict[str, Any]:
    """One Concept4CRS dialogue file as a transcript in the JSONL shape; raises `FieldError`."""
    parts = PurePosixPath(relative).parts
    if len(parts) < 3:
        raise FieldError("", "must sit in <system>/<dataset>/ folders")
    system, dataset, name = parts[-3], parts[-2], parts[-1]
    match = _CONCEPT_FILE.match(name)
    if match is None:
        raise FieldError("", "is not named <dialog>_<turn>_profile<P>_attribute<A>.json")
    simulated = _object(_object(data, "").get("simulator_dialog"), "simulator_dialog")
    context = simulated.get("context")
    if not isinstance(context, list) or not context:
        raise FieldError("simulator_dialog.context", "must be a non-empty list of turns")
    turns: list[dict[str, Any]] = []
    for index, raw in enumerate(context):
        path = f"simulator_dialog.context[{index}]"
        entry = _object(raw, path)
        role = entry.get("role")
        if role not in ("user", "assistant"):
            raise FieldError(_join(path, "role"), "must be 'user' or 'assistant'")
        turn: dict[str, Any] = {
            "role": "user" if role == "user" else "system",
            "text": _string(entry.get("content"), _join(path, "content")),
        }
        if "entity" in entry:
            turn["items"] = _strings(entry["entity"], _join(path, "entity"))
        if role == "user":
            if "feelings" in entry:
                turn["feelings"] = _string(entry["feelings"], _join(path, "feelings"))
        else:
            turn["entity"] = turn.get("items", [])
            for flag in ("rec_success_dialogue", "rec_success_rec"):
                if flag in entry:
                    turn[flag] = _boolean(entry[flag], _join(path, flag))
            if "rec_items" in entry:
                turn["rec_items"] = entry["rec_items"]
        turns.append(turn)
    accepting = next(
        (
            index
            for index, turn in enumerate(turns)
            if turn["role"] == "user" and ACCEPTANCE_MARK in turn["text"]
        ),
        None,
    )
    profile_number = int(match["profile"])
    persona: dict[str, str] = {}
    profile = simulated.get("profile", "")
    if isinstance(profile, list):
        persona["text"] = " ".join(_strings(profile, "simulator_dialog.profile"))
    else:
        persona["text"] = _string(profile, "simulator_dialog.profile")
    if personas is not None:
        found = personas.get(profile_number + 1)
        if found is None:
            raise FieldError(
                "", f"profile{profile_number} has no persona with id {profile_number + 1}"
            )
        persona.update(emotion=found.emotion, age_group=found.age_group)
    return {
        "id": f"{system}/{dataset}/{PurePosixPath(name).stem}",
        "system": system,
        "dataset": dataset,
        "lang": "en",
        "persona": persona,
        "preferences": _strings(simulated.get("attributes"), "simulator_dialog.attributes"),
        "turns": turns,
        "outcome": {
            "accepted": accepting is not None,
            "accepted_items": [] if accepting is None else _accepted_items(turns, accepting),
            "turn": None if accepting is None else accepting + 1,
        },
        "metadata": {
            "source": "concept4crs",
            "file": relative,
            "dialog_id": match["dialog"],
            "turn_id": int(match["turn"]),
            "profile": profile_number,
            "attribute": int(match["attribute"]),
            "seed_rec": data.get("rec", []),
            "seed_resp": data.get("resp", ""),
        },
    }


def import_concept4crs(
    path: str | Path,
    campaign: str,
    *,
    personas: str | Path | None = None,
    progress: Progress | None = None,
) -> ImportResult:
    """A Concept4CRS directory or zip: ``<system>/<dataset>/<dialog>_<turn>_profile<P>_...``."""
    source = Path(path)
    persona_table = read_personas(personas) if personas is not None else None
    _, rubric = _resolve_campaign(campaign)
    writer = _TranscriptBatchWriter(rubric)
    problems = _Problems()
    started = time.perf_counter()
    files, ignored, close_source = _concept_files(source)
    try:
        if not files:
            raise ImportFailed(
                [
                    Problem(
                        source.name,
                        "holds no Concept4CRS dialogue files "
                        "(<system>/<dataset>/<dialog>_<turn>_profile<P>_attribute<A>.json)",
                    )
                ]
            )
        for number, dialogue in enumerate(files, start=1):
            _report(progress, number, 2 * len(files), f"Checking {dialogue.relative}")
            try:
                data = json.loads(dialogue.read().decode("utf-8-sig"))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                problems.add(Problem(dialogue.relative, f"not valid JSON ({exc})"))
                continue
            try:
                writer.add(
                    concept_dialogue(data, dialogue.relative, persona_table), dialogue.relative
                )
            except FieldError as exc:
                problems.add(Problem(dialogue.relative, str(exc)))
    finally:
        close_source()
    result = ImportResult(ignored_files=ignored)
    return _import_validated(
        campaign, rubric, writer, problems, result, progress, len(files), started
    )


def import_transcripts(
    path: str | Path,
    campaign: str,
    *,
    format: str,
    personas: str | Path | None = None,
    progress: Progress | None = None,
) -> ImportResult:
    """Import a transcript file in ``format`` into the campaign named ``campaign``.

    The campaign is created with the default rubric when it does not exist yet (in the same
    transaction as the transcripts, so a failed import leaves no empty campaign behind).
    """
    if format not in FORMATS:
        raise ImportFailed([Problem(str(path), f"unknown format {format!r}")])
    if not Path(path).exists():
        raise ImportFailed([Problem(str(path), "does not exist")])
    if personas is not None and format != "concept4crs":
        raise ImportFailed([Problem(str(personas), "personas apply to concept4crs imports only")])
    if format == "jsonl":
        return import_jsonl(path, campaign, progress=progress)
    if format == "csv":
        return import_csv(path, campaign, progress=progress)
    return import_concept4crs(path, campaign, personas=personas, progress=progress)


def guess_format(path: str | Path) -> str | None:
    path = Path(path)
    if path.is_dir() or path.suffix.lower() == ".zip":
        return "concept4crs"
    return {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}.get(path.suffix.lower())


# LLM scores ---------------------------------------------------------------------------------


class _ScoreChecker:
    def __init__(self, campaign: Campaign, evaluator: str) -> None:
        self.evaluator = evaluator
        self.transcripts = {
            external_id: (pk, kind)
            for external_id, pk, kind in campaign.transcripts.values_list(
                "external_id", "pk", "kind"
            )
        }
        self.dimensions = {d.key: d for d in campaign.rubric.dimensions.all()}
        self.seen: dict[tuple[int, int], int] = {}
        self.now = timezone.now()

    def check(
        self, transcript_id: Any, dimension_key: Any, score: Any, rationale: Any, where: int
    ) -> tuple[Any, ...]:
        """The score's row, prepared for the database; raises `FieldError`."""
        external_id = _identifier(transcript_id, "transcript_id")
        found = self.transcripts.get(external_id)
        if found is None:
            raise FieldError(
                "transcript_id", f"{external_id!r} is not a transcript of this campaign"
            )
        pk, kind = found
        dimension = self.dimensions.get(dimension_key) if isinstance(dimension_key, str) else None
        if dimension is None:
            raise FieldError("dimension", f"{dimension_key!r} is not a dimension of the rubric")
        if (dimension.kind == Dimension.Kind.PAIRWISE) != (kind == Transcript.Kind.PAIRWISE):
            raise FieldError("dimension", f"{dimension.key!r} is not asked about {kind} items")
        value = _number(score, "score")
        if not dimension.in_scale(value):
            raise FieldError(
                "score",
                f"{value:g} is outside the scale of {dimension.key!r} "
                f"({dimension.scale_min}–{dimension.scale_max})",
            )
        key = (pk, dimension.pk)
        if key in self.seen:
            raise FieldError(
                "",
                f"repeats the score of {external_id!r} on {dimension.key!r} "
                f"(line {self.seen[key]})",
            )
        self.seen[key] = where
        return _SCORE_UPSERT.prepare(
            [pk, dimension.pk, self.evaluator, value, _string(rationale, "rationale"), self.now]
        )

    def check_evaluator(self, value: Any) -> None:
        if value not in (None, "", self.evaluator):
            raise FieldError(
                "evaluator",
                f"{value!r} differs from the evaluator being imported ({self.evaluator!r})",
            )


def import_llm_scores(
    path: str | Path,
    campaign: Campaign | str,
    *,
    evaluator: str,
    format: str | None = None,
    progress: Progress | None = None,
) -> ImportResult:
    """Scores of one LLM evaluator, JSONL or long CSV (transcript_id, dimension, score,
    rationale), all or nothing; a re-import replaces that evaluator's scores it names."""
    path = Path(path)
    if isinstance(campaign, str):
        found = Campaign.objects.select_related("rubric").filter(name=campaign).first()
        if found is None:
            raise ImportFailed([Problem(path.name, f"campaign {campaign!r} does not exist")])
        campaign = found
    evaluator = evaluator.strip()
    if not evaluator or len(evaluator) > 100:
        raise ImportFailed([Problem(path.name, "the evaluator name must have 1 to 100 characters")])
    format = format or guess_format(path)
    if format not in SCORE_FORMATS:
        raise ImportFailed([Problem(path.name, "must be a .jsonl or .csv file")])
    if not path.exists():
        raise ImportFailed([Problem(str(path), "does not exist")])
    checker = _ScoreChecker(campaign, evaluator)
    problems = _Problems()
    spool = _Spool()
    started = time.perf_counter()
    estimate = _line_count(path)
    try:
        for line_no, fields in _score_records(path, format, problems):
            _report(progress, line_no, 2 * estimate, f"Checking line {line_no}")
            try:
                checker.check_evaluator(fields.get("evaluator"))
                spool.add(
                    checker.check(
                        fields.get("transcript_id"),
                        fields.get("dimension"),
                        fields.get("score"),
                        fields.get("rationale"),
                        line_no,
                    )
                )
            except FieldError as exc:
                problems.add(Problem(path.name, str(exc), line_no))
        problems.raise_if_any()
        if spool.count == 0:
            raise ImportFailed([Problem(path.name, "holds no scores")])
        result = ImportResult(validate_seconds=time.perf_counter() - started)
        if progress is not None:
            progress(estimate, estimate + spool.count, f"Writing {spool.count} scores")
        write_started = time.perf_counter()
        with transaction.atomic():
            for batch in spool.batches():
                _SCORE_UPSERT.execute(batch, {})
        result.lock_seconds = time.perf_counter() - write_started
        result.llm_scores = spool.count
        if progress is not None:
            total = estimate + spool.count
            progress(total, total, f"Imported {spool.count} scores")
        return result
    finally:
        spool.close()


_SCORE_FIELDS = {"transcript_id", "dimension", "score", "rationale", "evaluator"}


def _score_records(
    path: Path, format: str, problems: _Problems
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, fields) for every score of the file; malformed lines go to ``problems``."""
    with path.open(encoding="utf-8-sig", newline="" if format == "csv" else None) as handle:
        if format == "jsonl":
            for line_no, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line.rstrip("\r\n"))
                    data = _object(value, "", _SCORE_FIELDS)
                except json.JSONDecodeError as exc:
                    problems.add(
                        Problem(
                            path.name, f"not valid JSON ({exc.msg}, column {exc.colno})", line_no
                        )
                    )
                    continue
                except FieldError as exc:
                    problems.add(Problem(path.name, str(exc), line_no))
                    continue
                yield line_no, data
            return
        reader = csv.reader(handle)
        header = [name.strip() for name in next(reader, [])]
        missing = [n for n in ("transcript_id", "dimension", "score") if n not in header]
        unknown = [n for n in header if n not in _SCORE_FIELDS]
        if missing or unknown:
            message = (
                f"missing column {missing[0]!r}" if missing else f"unknown column {unknown[0]!r}"
            )
            problems.add(Problem(path.name, message, 1))
            return
        line_no = reader.line_num + 1
        for record in reader:
            record_line, line_no = line_no, reader.line_num + 1
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(header):
                problems.add(
                    Problem(
                        path.name,
                        f"has {len(record)} cells; the header has {len(header)}",
                        record_line,
                    )
                )
                continue
            cells: dict[str, Any] = dict(zip(header, record, strict=True))
            try:
                cells["score"] = float(cells["score"])
            except ValueError:
                problems.add(Problem(path.name, "score must be a number", record_line))
                continue
            yield record_line, cells
