"""The fidelity report as CSV and as a workbook: one long table of measures, and the verdicts."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from typing import IO

from django.utils.translation import gettext as _

from evalsite.agreement.phrases import shown
from evalsite.spreadsheets import About, CellValue, Sheet, write_csv, write_workbook
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
    "notes_label",
)
VERDICT_HEADER = (
    "task",
    "group",
    "measure",
    "difference",
    "difference_ci_low",
    "difference_ci_high",
    "margin",
    "outcome",
    "subsampled",
    "equal_count",
    "at_count_mean",
    "at_count_sd",
    "at_count_low",
    "at_count_high",
    "alt_test_passed",
    "alt_test_winning_rate",
    "alpha_llm_humans",
    "alpha_llm_humans_ci_low",
    "alpha_llm_humans_ci_high",
    "alpha_humans",
    "stands_in",
    "failed_checks",
    "verdict_label",
    "alt_test_note",
)


def _labelling(task: TaskReport) -> str:
    """How an open-preference row's aspects were labelled, for its notes."""
    if task.task != "open_pref":
        return ""
    if task.labeller:
        return _("aspects labelled by %(labeller)s (one fixed prompt, every group)") % {
            "labeller": task.labeller
        }
    return _("aspects labelled by each responder")


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
    """One row per simulator and task: the test of the difference with its margin and the
    equal-count figure, the alt-test, α, and the one rule's verdict (None where not judged)."""
    for task in tasks:
        alts = {alt.group: alt for alt in task.alt_tests}
        for verdict in task.verdicts:
            alt = alts.get(verdict.group)
            test, found, rule = verdict.difference, verdict.difference.at_count, verdict.rule
            low, high = test.ci if test.ci is not None else (None, None)
            alpha_low, alpha_high = (
                alt.alpha_llm_ci if alt is not None and alt.alpha_llm_ci else (None, None)
            )
            yield [
                task.task,
                verdict.group,
                test.measure,
                test.difference,
                low,
                high,
                test.margin,
                test.outcome,
                test.subsampled or None,
                found.count if found else None,
                found.mean if found else None,
                found.sd if found else None,
                found.low if found else None,
                found.high if found else None,
                alt.passed if alt else None,
                alt.winning_rate if alt else None,
                alt.alpha_llm if alt else None,
                alpha_low,
                alpha_high,
                alt.alpha_people if alt else None,
                None if rule is None else rule.stands_in,
                None
                if rule is None
                else ", ".join(check.name for check in rule.checks if not check.passed),
                verdict.sentence,
                alt.note if alt else "",
            ]


def csv_bytes(tasks: Sequence[TaskReport]) -> bytes:
    stream = io.StringIO()
    write_csv(stream, MEASURE_HEADER, measure_rows(tasks))
    return stream.getvalue().encode("utf-8")


def write_report_workbook(
    target: IO[bytes], tasks: Sequence[TaskReport], study_name: str, exported_by: str
) -> None:
    empty = _("No simulator of this study has answers to compare with people's yet.")
    write_workbook(
        target,
        [
            Sheet("measures", MEASURE_HEADER, measure_rows(tasks), empty=empty),
            Sheet("verdicts", VERDICT_HEADER, verdict_rows(tasks), empty=empty),
        ],
        About(_("Fidelity study: %(name)s") % {"name": study_name}, exported_by),
    )
