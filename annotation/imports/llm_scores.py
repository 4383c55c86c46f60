"""LLM score files: the scores one LLM evaluator gave, as JSONL or long CSV, all or nothing.

Each line (or row) names a transcript of the campaign, a dimension of its rubric, a score
within the dimension's scale and an optional rationale. The whole file is checked first; a
re-import replaces that evaluator's scores of the transcripts and dimensions it names.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from annotation.imports.csv_rows import csv_records
from annotation.imports.fields import (
    check_identifier,
    check_number,
    check_object,
    check_storable,
    check_string,
)
from annotation.imports.formats import SCORE_FORMATS, guess_format
from annotation.imports.limits import read_lines
from annotation.imports.problems import FieldError, ImportFailed, Problem, Problems
from annotation.imports.progress import Progress, count_lines, report_line
from annotation.imports.result import ImportResult
from annotation.imports.spool import Spool
from annotation.imports.writer import (
    LLMScoreRow,
    PreparedRow,
    prepare_llm_score,
    write_prepared_llm_scores,
)
from annotation.models import Campaign, Dimension, Transcript
from evalsite.agreement.phrases import Phrase


class _ScoreChecker:
    def __init__(self, campaign: Campaign, evaluator: str) -> None:
        self.evaluator = evaluator
        self.transcripts = {
            external_id: (pk, kind)
            for external_id, pk, kind in campaign.transcripts.filter(
                superseded_at__isnull=True
            ).values_list("external_id", "pk", "kind")
        }
        self.dimensions = {d.key: d for d in campaign.rubric.dimensions.scored()}
        self.seen: dict[tuple[int, int], int] = {}
        self.now = timezone.now()

    def check(
        self, transcript_id: Any, dimension_key: Any, score: Any, rationale: Any, where: int
    ) -> PreparedRow:
        """The score's row, prepared for the database; raises `FieldError`."""
        external_id = check_identifier(transcript_id, "transcript_id")
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
        value = check_number(score, "score")
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
        return prepare_llm_score(
            LLMScoreRow(
                pk,
                dimension.pk,
                self.evaluator,
                value,
                check_string(rationale, "rationale"),
                self.now,
            )
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
    problems = Problems()
    spool = Spool()
    started = time.perf_counter()
    estimate = count_lines(path)
    try:
        for line_no, fields in _score_records(path, format, problems):
            report_line(progress, line_no, 2 * estimate, line_no)
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
            progress(
                estimate,
                estimate + spool.count,
                Phrase(gettext_noop("Writing %(count)s scores"), count=spool.count),
            )
        write_started = time.perf_counter()
        with transaction.atomic():
            for batch in spool.batches():
                write_prepared_llm_scores(batch)
        result.lock_seconds = time.perf_counter() - write_started
        result.llm_scores = spool.count
        if progress is not None:
            total = estimate + spool.count
            progress(
                total, total, Phrase(gettext_noop("Imported %(count)s scores"), count=spool.count)
            )
        return result
    finally:
        spool.close()


_SCORE_FIELDS = {"transcript_id", "dimension", "score", "rationale", "evaluator"}


def _score_records(
    path: Path, format: str, problems: Problems
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, fields) for every score of the file; malformed lines go to ``problems``, named
    by line and field: invalid UTF-8, lines over a transcript's limit, JSON nested too deeply,
    CSV cells too long, NUL and lone surrogates (which some databases cannot store)."""
    return _jsonl_rows(path, problems) if format == "jsonl" else _csv_rows(path, problems)


def _jsonl_rows(path: Path, problems: Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    for line in read_lines(path):
        if line.text is None:
            problems.add(Problem(path.name, f"the line {line.problem}", line.number))
            continue
        if not line.text.strip():
            continue
        try:
            data = check_object(json.loads(line.text), "", _SCORE_FIELDS)
            if "\\u" in line.text:
                # Only a \u escape can put a NUL or a lone surrogate into decoded JSON: raw ones
                # are either invalid JSON or invalid UTF-8, reported above.
                check_storable(data)
        except json.JSONDecodeError as exc:
            problems.add(
                Problem(path.name, f"not valid JSON ({exc.msg}, column {exc.colno})", line.number)
            )
            continue
        except RecursionError:
            problems.add(Problem(path.name, "the JSON is nested too deeply to read", line.number))
            continue
        except FieldError as exc:
            problems.add(Problem(path.name, str(exc), line.number))
            continue
        yield line.number, data


def _csv_rows(path: Path, problems: Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        records = csv_records(reader, path, problems)
        first = next(records, None)
        if first is None:
            return
        header = [name.strip() for name in first]
        missing = [n for n in ("transcript_id", "dimension", "score") if n not in header]
        unknown = [n for n in header if n not in _SCORE_FIELDS]
        if missing or unknown:
            message = (
                f"missing column {missing[0]!r}" if missing else f"unknown column {unknown[0]!r}"
            )
            problems.add(Problem(path.name, message, 1))
            return
        line_no = reader.line_num + 1
        for record in records:
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
                check_storable(cells)
            except FieldError as exc:
                problems.add(Problem(path.name, str(exc), record_line))
                continue
            try:
                cells["score"] = float(cells["score"])
            except ValueError:
                problems.add(Problem(path.name, "score must be a number", record_line))
                continue
            yield record_line, cells
