"""The writer: the one place with raw SQL, for transcripts and for LLM scores.

Rows are prepared for the database while they are validated, outside any transaction, and
written with ``INSERT … ON CONFLICT … DO UPDATE``: transcripts keyed by (campaign, external
id), LLM scores by (transcript, dimension, evaluator). A re-import overwrites the fields of
`TRANSCRIPT_FIELDS` and keeps the queue's own (position, counts); a transcript's LLM scores
replace the same evaluator's earlier ones.

`upsert_llm_scores` is the entry point for code that produces LLM scores itself.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import psycopg
from django.db import connection, transaction
from django.db.models import Field, JSONField, Max, Model
from django.utils import timezone
from django.utils.translation import gettext_noop

from annotation.imports.fields import check_storable
from annotation.imports.problems import (
    MAX_PROBLEMS,
    FieldError,
    ImportFailed,
    Problem,
    Problems,
)
from annotation.imports.progress import Progress
from annotation.imports.result import ImportResult
from annotation.imports.shape import TRANSCRIPT_FIELDS, TranscriptValidator
from annotation.imports.spool import BATCH_SIZE, Spool
from annotation.models import Assignment, Campaign, LLMScore, Rubric, Transcript
from annotation.rubrics import default_rubric
from evalsite.agreement.phrases import Phrase

# What a re-import does with a transcript people have annotated.
REFUSE = "refuse"
VERSION = "version"
ON_ANNOTATED = (REFUSE, VERSION)

# A row's values in the order of its upsert's fields, already converted for the database.
PreparedRow = tuple[Any, ...]


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
    ["position", "external_id", *TRANSCRIPT_FIELDS, "shuffle_key", "version"],
    unique=["campaign", "external_id", "version"],
    update=TRANSCRIPT_FIELDS,
)
_SCORE_UPSERT = _Upsert(
    LLMScore,
    ["transcript", "dimension", "evaluator", "score", "rationale", "imported_at"],
    unique=["transcript", "dimension", "evaluator"],
    update=["score", "rationale", "imported_at"],
)


@dataclass(frozen=True)
class LLMScoreRow:
    """One LLM score to store: the ids of its transcript and dimension, and what was said."""

    transcript_id: int
    dimension_id: int
    evaluator: str
    score: float
    rationale: str
    imported_at: datetime


def prepare_llm_score(row: LLMScoreRow) -> PreparedRow:
    """The score's row, prepared for the database (outside the transaction that writes it)."""
    return _SCORE_UPSERT.prepare(
        [
            row.transcript_id,
            row.dimension_id,
            row.evaluator,
            row.score,
            row.rationale,
            row.imported_at,
        ]
    )


def write_prepared_llm_scores(rows: list[PreparedRow]) -> None:
    """Upsert scores prepared by `prepare_llm_score`; call it inside a transaction."""
    _SCORE_UPSERT.execute(rows, {})


def upsert_llm_scores(rows: Iterable[LLMScoreRow]) -> int:
    """Store ``rows``, replacing an evaluator's earlier score of the same transcript and
    dimension, all or nothing; returns the number of rows written."""
    count = 0
    with transaction.atomic():
        batch: list[PreparedRow] = []
        for row in rows:
            batch.append(prepare_llm_score(row))
            if len(batch) >= BATCH_SIZE:
                write_prepared_llm_scores(batch)
                count += len(batch)
                batch = []
        write_prepared_llm_scores(batch)
        count += len(batch)
    return count


class TranscriptBatchWriter:
    """Collects validated transcripts, prepared for the database; checks ids repeat nowhere.

    ``on_annotated`` says what becomes of a row whose transcript already has annotations:
    ``refuse`` the import, naming those rows, or keep ``version``s (see `write_transcripts`).
    """

    def __init__(self, rubric: Rubric, *, on_annotated: str = REFUSE) -> None:
        if on_annotated not in ON_ANNOTATED:
            raise ValueError(f"on_annotated must be one of {ON_ANNOTATED}, not {on_annotated!r}")
        self.on_annotated = on_annotated
        self.validator = TranscriptValidator(rubric)
        self.dimensions = {d.key: d.pk for d in rubric.dimensions.all()}
        self.spool = Spool()
        self.scores = Spool()
        self.first_seen: dict[str, str] = {}
        self.now = timezone.now()
        self.shuffle = random.Random()

    def add(self, value: Any, where: str) -> None:
        check_storable(value)
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
                    *(row[name] for name in TRANSCRIPT_FIELDS),
                    self.shuffle.randrange(2**31),
                    1,
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


def resolve_campaign(name: str) -> tuple[Campaign | None, Rubric]:
    campaign = Campaign.objects.select_related("rubric").filter(name=name).first()
    if campaign is not None:
        return campaign, campaign.rubric
    return None, default_rubric()


@dataclass(frozen=True)
class _Current:
    """The current version of a transcript an import names: its row, version and place."""

    pk: int
    version: int
    position: int
    annotated: bool


def _current_versions(campaign: Campaign, ids: list[str]) -> tuple[dict[str, _Current], int]:
    """The current versions the import names that are annotated or past version 1 (the rows
    whose place or version the writer must know), and how many of the ids exist at all.

    Only those few are kept: a re-import of every id of a large campaign holds no more than
    a chunk of them at a time."""
    found: dict[str, _Current] = {}
    existing = 0
    current = campaign.transcripts.filter(superseded_at__isnull=True)
    for start in range(0, len(ids), 500):
        chunk = current.filter(external_id__in=ids[start : start + 500])
        annotated = set(chunk.filter(responses__isnull=False).values_list("pk", flat=True))
        for pk, external_id, version, position in chunk.values_list(
            "pk", "external_id", "version", "position"
        ):
            existing += 1
            if pk in annotated or version != 1:
                found[external_id] = _Current(pk, version, position, pk in annotated)
    return found, existing


def _refuse_annotated(annotated: list[str], first_seen: Mapping[str, str]) -> None:
    """ImportFailed naming every row that would change a transcript people have annotated.

    Their scores belong to the text they scored: a re-import never replaces it.
    """
    order = {external_id: n for n, external_id in enumerate(first_seen)}
    annotated.sort(key=order.__getitem__)
    raise ImportFailed(
        [
            Problem(
                first_seen[external_id],
                f"transcript {external_id!r} already has annotations, so a re-import "
                "cannot change it; leave the row out, give it a new id, or keep versions",
            )
            for external_id in annotated[:MAX_PROBLEMS]
        ],
        len(annotated),
    )


def _supersede(campaign: Campaign, annotated: list[_Current], now: datetime) -> None:
    """Retire the annotated versions a re-import replaces: out of the queue, their scores
    kept; holds on them end, so nobody goes on annotating text that was replaced."""
    pks = [entry.pk for entry in annotated]
    for start in range(0, len(pks), 500):
        chunk = pks[start : start + 500]
        Transcript.objects.filter(pk__in=chunk).update(superseded_at=now)
        campaign.assignments.filter(transcript_id__in=chunk, status=Assignment.Status.HELD).update(
            status=Assignment.Status.EXPIRED
        )


def write_transcripts(
    campaign_name: str, rubric: Rubric, writer: TranscriptBatchWriter, result: ImportResult
) -> Campaign:
    """Upsert every spooled transcript, and its LLM scores, in one transaction.

    A row whose transcript has annotations refuses the import, or with ``on_annotated``
    ``version`` becomes a new version of it (a new row, same id, next version number, same
    place): the annotated version keeps its text, scores and LLM scores, and leaves the queue.
    """
    started = time.perf_counter()
    with transaction.atomic():
        campaign, result.campaign_created = Campaign.objects.get_or_create(
            name=campaign_name, defaults={"rubric": rubric}
        )
        current, existing = _current_versions(campaign, list(writer.first_seen))
        annotated = [key for key, entry in current.items() if entry.annotated]
        if annotated and writer.on_annotated == REFUSE:
            _refuse_annotated(annotated, writer.first_seen)
        _supersede(campaign, [current[key] for key in annotated], writer.now)
        last = campaign.transcripts.aggregate(last=Max("position"))["last"] or 0
        constants = {"campaign": campaign.pk, "active_count": 0}
        for batch in writer.spool.batches():
            _TRANSCRIPT_UPSERT.execute([_placed(row, last, current) for row in batch], constants)
        if writer.scores.count:
            ids = dict(
                campaign.transcripts.filter(superseded_at__isnull=True).values_list(
                    "external_id", "pk"
                )
            )
            for batch in writer.scores.batches():
                _SCORE_UPSERT.execute([(ids[row[0]], *row[1:]) for row in batch], {})
    result.lock_seconds = time.perf_counter() - started
    result.transcripts = writer.spool.count
    result.versioned = len(annotated)
    result.updated = existing - result.versioned
    result.created = result.transcripts - existing
    result.llm_scores = writer.scores.count
    return campaign


def _placed(row: PreparedRow, last: int, current: Mapping[str, _Current]) -> PreparedRow:
    """The row with its place and version: a new transcript goes after the campaign's last
    (a transcript at version 1 that exists keeps its place: the update leaves it), a new
    version takes its transcript's place and the next number."""
    found = current.get(row[1])
    # Plain ints throughout: psycopg refuses a column that mixes them with the Int4 values
    # Django prepares for PostgreSQL.
    if found is None:
        return (int(last + row[0]), *row[1:-1], int(row[-1]))
    version = found.version + 1 if found.annotated else found.version
    return (int(found.position), *row[1:-1], int(version))


def import_validated(
    campaign_name: str,
    rubric: Rubric,
    writer: TranscriptBatchWriter,
    problems: Problems,
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
            progress(
                validated_units,
                total,
                Phrase(gettext_noop("Writing %(count)s transcripts"), count=writer.spool.count),
            )
        write_transcripts(campaign_name, rubric, writer, result)
        if progress is not None:
            progress(
                total,
                total,
                Phrase(gettext_noop("Imported %(count)s transcripts"), count=result.transcripts),
            )
        return result
    finally:
        writer.close()
