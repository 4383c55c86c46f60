"""The fidelity report: per task, each group's measures with CIs, people first, the paper's
figures, and a verdict per simulator.

A simulator is **close to people** on a task when its main measure and people's agree within
the intervals: their CIs overlap, or, where only one has a CI, it holds the other's value. With
no CI on either side there is no verdict. For binary preference and for feedback accept/reject,
the verdict also needs the alt-test (`evalsite.agreement.alt_test`) to pass: each prompt is an
item, each person a human annotator, and the simulator's answer is the LLM's (yes or accept
scores 1, no or reject 0, compared by accuracy). With fewer than two people, or too few prompts
per person, the alt-test is null with its note, and the verdict rests on the measure alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from django.utils.translation import gettext as _

from evalsite.agreement.alt_test import AltTestResult, alt_test
from evalsite.agreement.common import Interval
from evalsite.agreement.score_matrix import score_matrix
from evalsite.fidelity.bin_pref import bin_pref, by_frequency
from evalsite.fidelity.common import FloatArray, Measured
from evalsite.fidelity.feedback import comparison, feedback
from evalsite.fidelity.items_talk import items_talk
from evalsite.fidelity.open_pref import open_pref
from evalsite.fidelity.rec_request import rec_request
from fidelity.aspect_labels import study_labeller
from fidelity.models import Study, StudyItem
from fidelity.names import MEASURE_LABELS
from fidelity.references import REFERENCES, Reference
from fidelity.responses import GroupAnswers, study_groups

SIMULATOR_RATER = "simulator"
MAIN_MEASURE = {
    "items_talk": "entropy_bits",
    "bin_pref": "pearson_r",
    "open_pref": "aspect_entropy",
    "rec_request": "type_token_ratio",
    "feedback": "coherence",
}
MEASURES = {
    "items_talk": ("entropy_bits", "n_mentions", "n_distinct"),
    "bin_pref": ("pearson_r", "yes_rate", "n_items"),
    "open_pref": ("n_aspects", "aspect_entropy", "sentiment_entropy"),
    "rec_request": ("type_token_ratio", "embedding_diversity"),
    "feedback": (
        "coherence",
        "accept_rate_positive",
        "reject_rate_negative",
        "share_positive",
        "share_neither",
        "position_bias",
    ),
}
ALT_TESTED = {"bin_pref", "feedback"}


@dataclass(frozen=True)
class Cell:
    measure: str
    value: float | None
    ci: Interval | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroupRow:
    group: str
    n_answers: int
    cells: tuple[Cell, ...]

    def cell(self, measure: str) -> Cell:
        return next(cell for cell in self.cells if cell.measure == measure)


@dataclass(frozen=True)
class AltTestCell:
    """A simulator's alt-test against people: passed and winning rate, or null with a note."""

    group: str
    passed: bool | None
    winning_rate: float | None
    note: str = ""


@dataclass(frozen=True)
class Verdict:
    group: str
    close: bool | None
    sentence: str


@dataclass(frozen=True)
class TaskReport:
    task: str
    measures: tuple[str, ...]
    rows: tuple[GroupRow, ...]
    references: tuple[Reference, ...]
    alt_tests: tuple[AltTestCell, ...]
    verdicts: tuple[Verdict, ...]
    buckets: tuple[tuple[str, tuple[GroupRow, ...]], ...] = ()
    # Open preference: the model that labelled every review's aspects, or "" for each
    # responder's own labels.
    labeller: str = ""


def _cell(measure: str, value: Measured | int) -> Cell:
    if isinstance(value, int):
        return Cell(measure, float(value), None)
    return Cell(measure, value.value, value.ci, value.notes)


def _bin_pref_rows(groups: GroupAnswers, resamples: int, seed: int) -> dict[str, Measured | int]:
    measures = bin_pref(groups.bin_pref, resamples=resamples, seed=seed)
    return {
        "pearson_r": measures.pearson,
        "yes_rate": measures.yes_rate,
        "n_items": measures.n_items,
    }


def _embeddings(answers: GroupAnswers) -> FloatArray | None:
    """The group's request embeddings, when every request has one from the same model."""
    models = {model for model, _ in answers.rec_request_embeddings}
    if not answers.rec_request or len(models) != 1 or "" in models:
        return None
    vectors = [vector for _, vector in answers.rec_request_embeddings]
    if len({len(vector) for vector in vectors}) != 1:
        return None
    return np.asarray(vectors, dtype=np.float64)


def _cells(
    task: str, answers: GroupAnswers, resamples: int, seed: int
) -> dict[str, Measured | int]:
    if task == "items_talk":
        talk = items_talk(answers.items_talk, resamples=resamples, seed=seed)
        return {
            "entropy_bits": talk.entropy,
            "n_mentions": talk.n_mentions,
            "n_distinct": talk.n_distinct,
        }
    if task == "bin_pref":
        return _bin_pref_rows(answers, resamples, seed)
    if task == "open_pref":
        aspects = open_pref(answers.open_pref, resamples=resamples, seed=seed)
        return {
            "n_aspects": aspects.n_aspects,
            "aspect_entropy": aspects.aspect_entropy,
            "sentiment_entropy": aspects.sentiment_entropy,
        }
    if task == "rec_request":
        texts = rec_request(
            answers.rec_request, _embeddings(answers), resamples=resamples, seed=seed
        )
        return {
            "type_token_ratio": texts.type_token_ratio,
            "embedding_diversity": texts.embedding_diversity,
        }
    judged = feedback(answers.accept_reject, resamples=resamples, seed=seed)
    chosen = comparison(answers.comparison, resamples=resamples, seed=seed)
    return {
        "coherence": judged.coherence,
        "accept_rate_positive": judged.accept_rate_positive,
        "reject_rate_negative": judged.reject_rate_negative,
        "share_positive": chosen.share_positive,
        "share_neither": chosen.share_neither,
        "position_bias": chosen.position_bias,
    }


def _row(task: str, answers: GroupAnswers, resamples: int, seed: int) -> GroupRow:
    values = _cells(task, answers, resamples, seed)
    cells = tuple(_cell(measure, values[measure]) for measure in MEASURES[task])
    return GroupRow(answers.group, answers.counts()[task], cells)


def simulator_alt_test(
    people: list[tuple[str, str, float]], simulator: list[tuple[str, str, float]], group: str
) -> AltTestCell:
    """The alt-test of one simulator's 0/1 answers against people's, prompt by prompt."""
    rows = [*people, *((item, SIMULATOR_RATER, score) for item, _, score in simulator)]
    result = alt_test(score_matrix(rows, llm=SIMULATOR_RATER), scoring="accuracy")
    if isinstance(result, AltTestResult):
        return AltTestCell(group, result.passed, result.winning_rate)
    return AltTestCell(group, None, None, result.note)


def _overlap(a: Cell, b: Cell) -> bool | None:
    if a.value is None or b.value is None:
        return None
    if a.ci is not None and b.ci is not None:
        return a.ci[0] <= b.ci[1] and b.ci[0] <= a.ci[1]
    if a.ci is not None:
        return a.ci[0] <= b.value <= a.ci[1]
    if b.ci is not None:
        return b.ci[0] <= a.value <= b.ci[1]
    return None


def verdict(task: str, people: GroupRow, row: GroupRow, alt: AltTestCell | None) -> Verdict:
    """Whether the simulator of ``row`` is close to people on ``task``, as a sentence."""
    measure = MAIN_MEASURE[task]
    close = _overlap(people.cell(measure), row.cell(measure))
    if close is None:
        sentence = _("%(group)s: no verdict; %(measure)s lacks a value or an interval.")
    elif close:
        sentence = _("%(group)s is close to people on %(measure)s (the intervals agree).")
    else:
        sentence = _("%(group)s is not close to people on %(measure)s.")
    sentence = sentence % {"group": row.group, "measure": MEASURE_LABELS[measure]}
    if alt is not None and alt.passed is not None:
        close = None if close is None else close and alt.passed
        sentence += " " + (
            _("The alt-test passes: it can stand in for a person.")
            if alt.passed
            else _("The alt-test fails: it cannot stand in for a person.")
        )
    elif alt is not None:
        sentence += " " + _("The alt-test is not available: %(note)s.") % {"note": alt.note}
    return Verdict(row.group, close, sentence)


def task_report(
    task: str, groups: list[GroupAnswers], items: list[StudyItem], *, resamples: int, seed: int
) -> TaskReport:
    rows = tuple(_row(task, answers, resamples, seed) for answers in groups)
    people, others = rows[0], rows[1:]
    alts: list[AltTestCell] = []
    if task in ALT_TESTED:
        scores = "bin_pref_scores" if task == "bin_pref" else "accept_scores"
        alts = [
            simulator_alt_test(getattr(groups[0], scores), getattr(answers, scores), answers.group)
            for answers in groups[1:]
        ]
    verdicts = tuple(
        verdict(task, people, row, alts[index] if alts else None)
        for index, row in enumerate(others)
    )
    buckets: tuple[tuple[str, tuple[GroupRow, ...]], ...] = ()
    if task == "bin_pref":
        n_ratings = {item.item_id: item.n_ratings for item in items}
        split = [
            by_frequency(g.bin_pref, n_ratings, resamples=resamples, seed=seed) for g in groups
        ]
        buckets = tuple(
            (
                bucket,
                tuple(
                    GroupRow(
                        answers.group,
                        measures[bucket].n_answers,
                        tuple(
                            _cell(m, v)
                            for m, v in (
                                ("pearson_r", measures[bucket].pearson),
                                ("yes_rate", measures[bucket].yes_rate),
                                ("n_items", measures[bucket].n_items),
                            )
                        ),
                    )
                    for answers, measures in zip(groups, split, strict=True)
                ),
            )
            for bucket in ("frequent", "infrequent")
        )
    return TaskReport(task, MEASURES[task], rows, REFERENCES[task], tuple(alts), verdicts, buckets)


def study_report(study: Study, *, resamples: int = 1000) -> tuple[TaskReport, ...]:
    """Every task of the study that has prompts, people's row first in each."""
    labeller = study_labeller(study)
    groups = study_groups(study, labeller)
    items = list(study.items.all())
    tasks = [task for task in MEASURES if study.prompts.filter(task=task).exists()]
    reports = (
        task_report(task, groups, items, resamples=resamples, seed=study.seed) for task in tasks
    )
    return tuple(
        replace(report, labeller=labeller) if report.task == "open_pref" else report
        for report in reports
    )
