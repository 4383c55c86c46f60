"""The fidelity report: per task, each group's measures with CIs, people first, the paper's
figures, and a verdict per simulator.

The verdict has two parts (docs/fidelity.md, "The verdict").

1. **A test of the difference** of the task's main measure (`MAIN_MEASURE`), simulator minus
   people, against a stated margin (`MARGINS`): its 95% CI is the difference ± 1.96 √(s.e.² of
   people + s.e.² of the simulator), each s.e. read from the group's own CI (its half-width
   over 1.96), the groups taken as independent. The simulator is *equivalent* to people when
   the whole CI lies within ±margin (two one-sided tests at 2.5% each), *different* when it
   lies wholly beyond the margin, and *not shown equivalent* otherwise; without a value or a
   CI on either side there is no test. On items talk the entropies are compared at equal
   numbers of answers: the group with more answers (usually people, who answer each prompt
   several times) is subsampled to the other's count 200 times (seeded), and the mean of those
   entropies stands for it, with its own s.e. (a mean over subsamples varies about as much as
   the entropy of all its answers).
2. **Whether it can stand in for people**, on binary preference and feedback accept/reject,
   whose answers can be scored against people's prompt by prompt: the one rule of
   `evalsite.agreement.verdict` (the alt-test passes, the lower CI bound of α simulator–people
   is above 0, α simulator–people is not significantly below α between people, and the
   simulator's answers vary). Each prompt is an item, each person a human annotator, and the
   simulator's answer is the LLM's (yes or accept scores 1, no or reject 0; the alt-test
   compares by accuracy, α is nominal). On the other tasks the question is not judged, and the
   sentence says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from django.utils.translation import gettext as _
from scipy.stats import norm

from evalsite.agreement.alt_test import AltTestResult, alt_test
from evalsite.agreement.common import DEFAULT_CONFIDENCE, Interval
from evalsite.agreement.pairwise_alpha import llm_human_alpha
from evalsite.agreement.phrases import shown
from evalsite.agreement.score_matrix import score_matrix
from evalsite.agreement.verdict import StandIn, stand_in
from evalsite.fidelity.bin_pref import bin_pref, by_frequency
from evalsite.fidelity.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    AtCount,
    FloatArray,
    Measured,
)
from evalsite.fidelity.feedback import comparison, feedback
from evalsite.fidelity.items_talk import ItemsTalkMeasures, items_talk
from evalsite.fidelity.open_pref import open_pref
from evalsite.fidelity.rec_request import rec_request
from fidelity.aspect_labels import study_labeller
from fidelity.models import Study, StudyItem
from fidelity.names import MEASURE_LABELS
from fidelity.references import REFERENCES, Reference
from fidelity.responses import GroupAnswers, study_groups

SIMULATOR_RATER = "simulator"
MAIN_MEASURE = {
    "items_talk": "entropy_cs_bits",
    "bin_pref": "pearson_r",
    "open_pref": "aspect_entropy_cs",
    "rec_request": "type_token_ratio",
    "feedback": "coherence",
}
# How far a simulator's main measure may be from people's and still count as equivalent
# (docs/fidelity.md says why each). Half a bit is a factor of √2 in the effective number of
# items named; the paper's simulators lie 1 to 8 bits below people on items talk.
MARGINS = {
    "entropy_cs_bits": 0.5,
    "pearson_r": 0.1,
    "aspect_entropy_cs": 0.5,
    "type_token_ratio": 0.05,
    "coherence": 0.05,
}
MEASURES = {
    "items_talk": ("entropy_cs_bits", "entropy_bits", "n_mentions", "n_distinct"),
    "bin_pref": ("pearson_r", "yes_rate", "n_items"),
    "open_pref": (
        "n_aspects",
        "aspect_entropy_cs",
        "aspect_entropy",
        "sentiment_entropy_cs",
        "sentiment_entropy",
    ),
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
Outcome = Literal["equivalent", "different", "inconclusive"]
# The rule with no figures: every check fails for want of evidence.
NO_EVIDENCE = stand_in(None, None, None, None)


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
    """A simulator against people prompt by prompt: the alt-test (passed and winning rate, or
    null with a note), α of the simulator with each person beside α between people, and the
    one rule's verdict on them."""

    group: str
    passed: bool | None
    winning_rate: float | None
    note: str = ""
    alpha_llm: float | None = None
    alpha_llm_ci: Interval | None = None
    alpha_people: float | None = None
    alpha_people_ci: Interval | None = None
    rule: StandIn | None = None


@dataclass(frozen=True)
class DifferenceTest:
    """The simulator's main measure minus people's, with its CI, against ±``margin``.

    ``outcome`` is None when either side lacks a value or a CI. On items talk, ``at_count`` is
    the entropy of the group named by ``subsampled`` ("people" or "simulator") at the other
    group's number of answers; its mean stands for that group in the difference.
    """

    measure: str
    margin: float
    difference: float | None = None
    ci: Interval | None = None
    outcome: Outcome | None = None
    at_count: AtCount | None = None
    subsampled: str = ""


@dataclass(frozen=True)
class Verdict:
    group: str
    difference: DifferenceTest
    # The one rule, on the tasks whose answers are scored against people's; None elsewhere.
    rule: StandIn | None
    sentence: str

    @property
    def passed(self) -> bool | None:
        """True when equivalent to people (and standing in, where that is judged); False when
        it differs or cannot stand in; None when neither is settled."""
        if self.rule is not None and not self.rule.stands_in:
            return False
        if self.difference.outcome == "different":
            return False
        if self.difference.outcome == "equivalent":
            return True
        return None


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


def _talk_cells(talk: ItemsTalkMeasures) -> dict[str, Measured | int]:
    return {
        "entropy_cs_bits": talk.entropy_cs,
        "entropy_bits": talk.entropy,
        "n_mentions": talk.n_mentions,
        "n_distinct": talk.n_distinct,
    }


def _cells(
    task: str, answers: GroupAnswers, resamples: int, seed: int
) -> dict[str, Measured | int]:
    if task == "items_talk":
        return _talk_cells(items_talk(answers.items_talk, resamples=resamples, seed=seed))
    if task == "bin_pref":
        return _bin_pref_rows(answers, resamples, seed)
    if task == "open_pref":
        aspects = open_pref(answers.open_pref, resamples=resamples, seed=seed)
        return {
            "n_aspects": aspects.n_aspects,
            "aspect_entropy_cs": aspects.aspect_entropy_cs,
            "aspect_entropy": aspects.aspect_entropy,
            "sentiment_entropy_cs": aspects.sentiment_entropy_cs,
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


def _group_row(task: str, answers: GroupAnswers, values: dict[str, Measured | int]) -> GroupRow:
    cells = tuple(_cell(measure, values[measure]) for measure in MEASURES[task])
    return GroupRow(answers.group, answers.counts()[task], cells)


def simulator_alt_test(
    people: list[tuple[str, str, float]],
    simulator: list[tuple[str, str, float]],
    group: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> AltTestCell:
    """One simulator's 0/1 answers against people's, prompt by prompt: the alt-test, α of the
    simulator with each person beside α between people, and the one rule on them."""
    rows = [*people, *((item, SIMULATOR_RATER, score) for item, _, score in simulator)]
    matrix = score_matrix(rows, llm=SIMULATOR_RATER)
    result = alt_test(matrix, scoring="accuracy")
    alt = result if isinstance(result, AltTestResult) else None
    alpha = llm_human_alpha(matrix, "nominal", resamples=resamples, seed=seed)
    answers = matrix.llm_scores[~np.isnan(matrix.llm_scores)]
    rule = stand_in(
        alt,
        alpha.llm_vs_humans.interval.bounds,
        alpha.gap.bounds,
        len(np.unique(answers)) if len(answers) else None,
    )
    return AltTestCell(
        group,
        None if alt is None else alt.passed,
        None if alt is None else alt.winning_rate,
        "" if isinstance(result, AltTestResult) else result.note,
        alpha.llm_vs_humans.value,
        alpha.llm_vs_humans.interval.bounds,
        alpha.humans_pairwise.value,
        alpha.humans_pairwise.interval.bounds,
        rule,
    )


_Z = float(norm.ppf(0.5 + DEFAULT_CONFIDENCE / 2))


def _standard_error(ci: Interval) -> float:
    return (ci[1] - ci[0]) / (2 * _Z)


def difference_test(
    measure: str,
    people: Cell,
    simulator: Cell,
    *,
    at_count: AtCount | None = None,
    subsampled: str = "",
) -> DifferenceTest:
    """The simulator's ``measure`` minus people's against ±`MARGINS` (see the module's doc).

    With ``subsampled``, the mean of ``at_count`` stands for that group's value; when it could
    not be measured (None) there is no test.
    """
    test = DifferenceTest(measure, MARGINS[measure], at_count=at_count, subsampled=subsampled)
    if people.value is None or simulator.value is None:
        return test
    if people.ci is None or simulator.ci is None or (subsampled and at_count is None):
        return test
    people_value, simulator_value = people.value, simulator.value
    if at_count is not None and subsampled == "people":
        people_value = at_count.mean
    elif at_count is not None and subsampled == "simulator":
        simulator_value = at_count.mean
    difference = simulator_value - people_value
    half = _Z * math.hypot(_standard_error(people.ci), _standard_error(simulator.ci))
    low, high = difference - half, difference + half
    margin = test.margin
    outcome: Outcome
    if -margin <= low and high <= margin:
        outcome = "equivalent"
    elif low > margin or high < -margin:
        outcome = "different"
    else:
        outcome = "inconclusive"
    return replace(test, difference=difference, ci=(low, high), outcome=outcome)


def _signed(value: float) -> str:
    return f"{value:+.2f}"


def difference_sentence(group: str, test: DifferenceTest) -> str:
    """The outcome of the test of the difference, in words."""
    figures = {
        "group": group,
        "measure": MEASURE_LABELS[test.measure],
        "margin": f"{test.margin:g}",
    }
    if test.outcome is None or test.difference is None or test.ci is None:
        return (
            _(
                "%(group)s: no test of the difference from people on %(measure)s; a value or an "
                "interval is missing."
            )
            % figures
        )
    figures |= {
        "difference": _signed(test.difference),
        "low": _signed(test.ci[0]),
        "high": _signed(test.ci[1]),
    }
    # Whole sentences, not one with a word swapped, so that each translates whole.
    if test.outcome == "equivalent":
        text = _(
            "%(group)s is equivalent to people on %(measure)s within the margin of "
            "±%(margin)s: the difference is %(difference)s [%(low)s, %(high)s]."
        )
    elif test.outcome == "different":
        text = _(
            "%(group)s differs from people on %(measure)s by more than the margin of "
            "±%(margin)s: the difference is %(difference)s [%(low)s, %(high)s]."
        )
    else:
        text = _(
            "%(group)s is not shown to be equivalent to people on %(measure)s: the difference "
            "is %(difference)s [%(low)s, %(high)s], which reaches beyond the margin of "
            "±%(margin)s."
        )
    return text % figures


def at_count_sentence(test: DifferenceTest) -> str:
    """The subsampled group's entropy at the other's number of answers, or ""."""
    found = test.at_count
    if found is None:
        return ""
    figures = {
        "count": found.count,
        "repeats": found.repeats,
        "mean": f"{found.mean:.2f}",
        "sd": f"{found.sd:.2f}",
        "low": f"{found.low:.2f}",
        "high": f"{found.high:.2f}",
    }
    if test.subsampled == "people":
        return (
            _(
                "At the simulator's %(count)d answers, people's Chao–Shen entropy averages "
                "%(mean)s bits over %(repeats)d subsamples (s.d. %(sd)s; 2.5th to 97.5th "
                "percentile %(low)s to %(high)s)."
            )
            % figures
        )
    return (
        _(
            "At people's %(count)d answers, the simulator's Chao–Shen entropy averages %(mean)s "
            "bits over %(repeats)d subsamples (s.d. %(sd)s; 2.5th to 97.5th percentile %(low)s "
            "to %(high)s)."
        )
        % figures
    )


def verdict(
    task: str,
    people: GroupRow,
    row: GroupRow,
    alt: AltTestCell | None,
    *,
    at_count: AtCount | None = None,
    subsampled: str = "",
) -> Verdict:
    """The verdict on the simulator of ``row`` on ``task``, as figures and a sentence.

    ``alt`` carries the one rule's figures on the tasks whose answers are scored against
    people's (`ALT_TESTED`; without it the rule fails for want of evidence); ``at_count`` and
    ``subsampled`` the equal-count comparison of items talk.
    """
    measure = MAIN_MEASURE[task]
    test = difference_test(
        measure, people.cell(measure), row.cell(measure), at_count=at_count, subsampled=subsampled
    )
    parts = [difference_sentence(row.group, test), at_count_sentence(test)]
    rule = None
    if task in ALT_TESTED:
        rule = alt.rule if alt is not None and alt.rule is not None else NO_EVIDENCE
        parts.append(shown(rule.sentence))
        if alt is not None and alt.passed is None and alt.note:
            parts.append(_("The alt-test is not available: %(note)s.") % {"note": alt.note})
    else:
        parts.append(
            _(
                "Whether it can stand in for people is not judged on this task: that needs its "
                "answers scored against people's, prompt by prompt."
            )
        )
    return Verdict(row.group, test, rule, " ".join(part for part in parts if part))


def _equal_count(
    people: ItemsTalkMeasures, simulator: ItemsTalkMeasures, seed: int
) -> tuple[AtCount | None, str]:
    """The larger group's entropy at the smaller one's number of answers, and which it is."""
    if people.n_answers > simulator.n_answers:
        return people.at_count(simulator.n_answers, seed=seed), "people"
    if simulator.n_answers > people.n_answers:
        return simulator.at_count(people.n_answers, seed=seed), "simulator"
    return None, ""


def task_report(
    task: str, groups: list[GroupAnswers], items: list[StudyItem], *, resamples: int, seed: int
) -> TaskReport:
    talks: list[ItemsTalkMeasures] = []
    if task == "items_talk":
        talks = [items_talk(g.items_talk, resamples=resamples, seed=seed) for g in groups]
        rows = tuple(
            _group_row(task, answers, _talk_cells(talk))
            for answers, talk in zip(groups, talks, strict=True)
        )
    else:
        rows = tuple(
            _group_row(task, answers, _cells(task, answers, resamples, seed)) for answers in groups
        )
    people, others = rows[0], rows[1:]
    alts: list[AltTestCell] = []
    if task in ALT_TESTED:
        scores = "bin_pref_scores" if task == "bin_pref" else "accept_scores"
        alts = [
            simulator_alt_test(
                getattr(groups[0], scores),
                getattr(answers, scores),
                answers.group,
                resamples=resamples,
                seed=seed,
            )
            for answers in groups[1:]
        ]
    counted = [_equal_count(talks[0], talk, seed) for talk in talks[1:]] or [(None, "")] * len(
        others
    )
    verdicts = tuple(
        verdict(
            task,
            people,
            row,
            alts[index] if alts else None,
            at_count=counted[index][0],
            subsampled=counted[index][1],
        )
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
