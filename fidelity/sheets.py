"""The fidelity report as CSV and as a workbook: one long table of measures, and the verdicts."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from typing import IO

from evalsite.agreement.phrases import shown
from evalsite.spreadsheets import CellValue, Sheet, write_csv, write_workbook
from fidelity.references import BUCKET_REFERENCES
from fidelity.report import GroupRow, TaskReport

MEASURE_HEADER = (
    "task",
    "subset",
    "group",
    "n_answers",
    "measure",
    "value",
    "ci_low",
    "ci_high",
    "notes",
)
VERDICT_HEADER = (
    "task",
    "group",
    "close_to_people",
    "alt_test_passed",
    "alt_test_winning_rate",
    "verdict",
    "alt_test_note",
)


def _labelling(task: TaskReport) -> str:
    """How an open-preference row's aspects were labelled, for its notes."""
    if task.task != "open_pref":
        return ""
    if task.labeller:
        return f"aspects labelled by {task.labeller} (one fixed prompt, every group)"
    return "aspects labelled by each responder"


def _group_rows(
    task: str, subset: str, rows: Sequence[GroupRow], labelling: str = ""
) -> Iterator[list[CellValue]]:
    for row in rows:
        for cell in row.cells:
            notes = [labelling] if labelling else []
            low, high = cell.ci if cell.ci is not None else (None, None)
            yield [
                task,
                subset,
                row.group,
                row.n_answers,
                cell.measure,
                cell.value,
                low,
                high,
                "; ".join([*notes, *(shown(note) for note in cell.notes)]),
            ]


def measure_rows(tasks: Sequence[TaskReport]) -> Iterator[list[CellValue]]:
    for task in tasks:
        yield from _group_rows(task.task, "all", task.rows, _labelling(task))
        for bucket, rows in task.buckets:
            yield from _group_rows(task.task, bucket, rows)
        paper = [("paper", reference) for reference in task.references]
        for bucket, _rows in task.buckets:
            paper += [(f"paper {bucket}", ref) for ref in BUCKET_REFERENCES.get(bucket, ())]
        for subset, reference in paper:
            yield [
                task.task,
                subset,
                reference.group,
                None,
                reference.measure,
                reference.value,
                None,
                None,
                reference.source,
            ]


def verdict_rows(tasks: Sequence[TaskReport]) -> Iterator[list[CellValue]]:
    for task in tasks:
        alts = {alt.group: alt for alt in task.alt_tests}
        for verdict in task.verdicts:
            alt = alts.get(verdict.group)
            yield [
                task.task,
                verdict.group,
                verdict.close,
                alt.passed if alt else None,
                alt.winning_rate if alt else None,
                verdict.sentence,
                alt.note if alt else "",
            ]


def csv_bytes(tasks: Sequence[TaskReport]) -> bytes:
    stream = io.StringIO()
    write_csv(stream, MEASURE_HEADER, measure_rows(tasks))
    return stream.getvalue().encode("utf-8")


def write_report_workbook(target: IO[bytes], tasks: Sequence[TaskReport]) -> None:
    write_workbook(
        target,
        [
            Sheet("measures", MEASURE_HEADER, measure_rows(tasks)),
            Sheet("verdicts", VERDICT_HEADER, verdict_rows(tasks)),
        ],
    )
