"""The report's tables, row by row, and the one definition of every exported column header.

Each statistic is a `Column`: its header, and how to read its value, its CI and the number of
items it rests on from a typed block. The workbook, the CSV files and the page all take their
columns from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from annotation.report.blocks import PairwiseBlock, RatedBlock, Sizes
from annotation.report.compute import PERSONA_BREAKDOWNS
from annotation.report.dimensions import POOLED
from annotation.report.verdict import block_verdict, epsilon_note, verdict
from evalsite.agreement import multiplicity
from evalsite.agreement.common import Interval
from evalsite.agreement.phrases import notes_text
from evalsite.spreadsheets import CellValue


@dataclass(frozen=True)
class Column:
    """One statistic of a block as exported: ``name``, and ``name_low``/``name_high`` for its CI,
    and ``name_n`` for the items it rests on where the headline shows them."""

    name: str
    value: Callable[[RatedBlock], float | bool | None]
    ci: Callable[[RatedBlock], Interval | None] | None = None
    size: Callable[[Sizes], int | None] | None = None

    @property
    def headers(self) -> list[str]:
        return (
            [self.name] if self.ci is None else [self.name, f"{self.name}_low", f"{self.name}_high"]
        )

    def cells(self, block: RatedBlock) -> list[CellValue]:
        value = self.value(block)
        if self.ci is None:
            return [value]
        interval = self.ci(block)
        return [value, *(interval or (None, None))]


ALPHA_HUMANS = Column(
    "alpha_humans",
    lambda b: b.agreement.alpha.humans,
    lambda b: b.agreement.alpha_ci.humans,
    lambda n: n.alpha_humans,
)
ALPHA_HUMANS_PLUS_LLM = Column(
    "alpha_humans_plus_llm",
    lambda b: b.agreement.alpha.humans_plus_llm,
    lambda b: b.agreement.alpha_ci.humans_plus_llm,
    lambda n: n.alpha_humans_plus_llm,
)
ALPHA_LLM_VS_HUMANS = Column(
    "alpha_llm_vs_humans",
    lambda b: b.agreement.alpha.llm_vs_humans,
    lambda b: b.agreement.alpha_ci.llm_vs_humans,
    lambda n: n.paired,
)
ALPHA_HUMANS_PAIRWISE = Column(
    "alpha_humans_pairwise",
    lambda b: b.agreement.alpha.humans_pairwise,
    lambda b: b.agreement.alpha_ci.humans_pairwise,
    lambda n: n.alpha_humans,
)
ALT_TEST_EPSILON = Column(
    "alt_test_epsilon", lambda b: None if b.alt_test is None else b.alt_test.epsilon
)
ALT_TEST_WINNING_RATE = Column(
    "alt_test_winning_rate", lambda b: None if b.alt_test is None else b.alt_test.winning_rate
)
ALT_TEST_ADVANTAGE_PROBABILITY = Column(
    "alt_test_advantage_probability",
    lambda b: None if b.alt_test is None else b.alt_test.advantage_probability,
)
ALT_TEST_PASSED = Column(
    "alt_test_passed", lambda b: None if b.alt_test is None else b.alt_test.passed
)
ALPHA_LLM_VS_HUMAN_MEAN = Column(
    "alpha_llm_vs_human_mean",
    lambda b: b.agreement.alpha.llm_vs_human_mean,
    lambda b: b.agreement.alpha_ci.llm_vs_human_mean,
)
PEARSON_R = Column(
    "pearson_r",
    lambda b: b.agreement.pearson.value,
    lambda b: b.agreement.pearson.ci,
    lambda n: n.paired,
)
PEARSON_P = Column("pearson_p", lambda b: b.agreement.pearson.p)
SPEARMAN_RHO = Column(
    "spearman_rho",
    lambda b: b.agreement.spearman.value,
    lambda b: b.agreement.spearman.ci,
    lambda n: n.paired,
)
SPEARMAN_P = Column("spearman_p", lambda b: b.agreement.spearman.p)
KENDALL_TAU = Column(
    "kendall_tau",
    lambda b: b.agreement.kendall.value,
    lambda b: b.agreement.kendall.ci,
    lambda n: n.paired,
)
KENDALL_P = Column("kendall_p", lambda b: b.agreement.kendall.p)
MAE = Column("mae", lambda b: b.agreement.mae, lambda b: b.agreement.mae_ci)
EXACT_AGREEMENT = Column(
    "exact_agreement",
    lambda b: b.agreement.exact_agreement,
    lambda b: b.agreement.exact_agreement_ci,
)
EXACT_AGREEMENT_PER_ITEM = Column(
    "exact_agreement_per_item",
    lambda b: b.agreement.exact_agreement_per_item,
    lambda b: b.agreement.exact_agreement_per_item_ci,
)
WITHIN_ONE = Column(
    "within_one", lambda b: b.agreement.within_one, lambda b: b.agreement.within_one_ci
)
# What each rate would be by chance (`evalsite.agreement.results.ChanceLevels`): both raters
# uniformly at random on the scale's points, or the LLM and the people independently with the
# shares of answers each gave.
SCALE_POINTS = Column("scale_points", lambda b: b.agreement.chance.scale_points)
EXACT_AGREEMENT_CHANCE_UNIFORM = Column(
    "exact_agreement_chance_uniform", lambda b: b.agreement.chance.exact_uniform
)
EXACT_AGREEMENT_CHANCE_MARGINALS = Column(
    "exact_agreement_chance_marginals", lambda b: b.agreement.chance.exact_marginals
)
WITHIN_ONE_CHANCE_UNIFORM = Column(
    "within_one_chance_uniform", lambda b: b.agreement.chance.within_one_uniform
)
WITHIN_ONE_CHANCE_MARGINALS = Column(
    "within_one_chance_marginals", lambda b: b.agreement.chance.within_one_marginals
)

# The verdict's evidence first: the alt-test and α LLM–human beside α human–human; α with the
# LLM as one more rater follows as a secondary figure.
HEADLINE = (
    ALPHA_HUMANS,
    ALPHA_LLM_VS_HUMANS,
    ALPHA_HUMANS_PAIRWISE,
    ALT_TEST_WINNING_RATE,
    ALT_TEST_PASSED,
    ALPHA_HUMANS_PLUS_LLM,
    PEARSON_R,
    SPEARMAN_RHO,
    KENDALL_TAU,
)
# The breakdown groups are mostly too small for the alt-test (30 items per annotator).
BREAKDOWN = (
    ALPHA_HUMANS,
    ALPHA_LLM_VS_HUMANS,
    ALPHA_HUMANS_PLUS_LLM,
    PEARSON_R,
    SPEARMAN_RHO,
    KENDALL_TAU,
)
DETAIL = (
    ALPHA_HUMANS,
    ALPHA_LLM_VS_HUMANS,
    ALPHA_HUMANS_PAIRWISE,
    ALT_TEST_EPSILON,
    ALT_TEST_WINNING_RATE,
    ALT_TEST_ADVANTAGE_PROBABILITY,
    ALT_TEST_PASSED,
    ALPHA_HUMANS_PLUS_LLM,
    ALPHA_LLM_VS_HUMAN_MEAN,
    PEARSON_R,
    PEARSON_P,
    SPEARMAN_RHO,
    SPEARMAN_P,
    KENDALL_TAU,
    KENDALL_P,
    MAE,
    EXACT_AGREEMENT,
    EXACT_AGREEMENT_PER_ITEM,
    WITHIN_ONE,
    SCALE_POINTS,
    EXACT_AGREEMENT_CHANCE_UNIFORM,
    EXACT_AGREEMENT_CHANCE_MARGINALS,
    WITHIN_ONE_CHANCE_UNIFORM,
    WITHIN_ONE_CHANCE_MARGINALS,
)


def _sized_cells(block: RatedBlock, columns: Sequence[Column]) -> list[CellValue]:
    cells: list[CellValue] = [block.n.items]
    for column in columns:
        cells.extend(column.cells(block))
        cells.append(None if column.size is None else column.size(block.n))
    return cells


def _sized_header(columns: Sequence[Column]) -> list[str]:
    return [
        "n_items",
        *[header for column in columns for header in (*column.headers, f"{column.name}_n")],
    ]


HEADLINE_HEADER = _sized_header(HEADLINE)
DETAIL_HEADER = [
    "n_items",
    "n_alpha_humans",
    "n_alpha_humans_plus_llm",
    "n_paired",
    *[header for column in DETAIL for header in column.headers],
    "stands_in",
    "stands_in_label",
    "notes_label",
]


def _detail_cells(block: RatedBlock) -> list[CellValue]:
    cells: list[CellValue] = [
        block.n.items,
        block.n.alpha_humans,
        block.n.alpha_humans_plus_llm,
        block.n.paired,
    ]
    for column in DETAIL:
        cells.extend(column.cells(block))
    cells.extend(block_verdict(block))
    notes = list(block.notes)
    if block.error:
        notes.insert(0, block.error)
    cells.append(notes_text(notes))
    return cells


def rated_blocks(evaluation: dict[str, Any]) -> list[tuple[str, RatedBlock]]:
    """(dimension, block) of every rated dimension of an evaluation, the pooled one first."""
    blocks: list[tuple[str, RatedBlock]] = []
    if evaluation["pooled"] is not None:
        blocks.append((POOLED, RatedBlock.from_json(evaluation["pooled"])))
    blocks.extend(
        (key, RatedBlock.from_json(block)) for key, block in evaluation["dimensions"].items()
    )
    return blocks


def _blocks(result: dict[str, Any]) -> Iterator[tuple[str, str, RatedBlock]]:
    """(evaluator, dimension, block) of every rated dimension, the pooled one first."""
    for evaluation in result["evaluations"]:
        evaluator = evaluation["evaluator"] or ""
        for key, block in rated_blocks(evaluation):
            yield evaluator, key, block


def _label(result: dict[str, Any], evaluator: str, dimension: str) -> str:
    return dimension if len(result["evaluations"]) == 1 else f"{dimension} · {evaluator}"


SUMMARY_HEADER = [
    "label",
    "evaluator",
    "dimension",
    "level",
    *HEADLINE_HEADER,
    "stands_in",
    "stands_in_label",
    "verdict_label",
]


def _verdict_subject(result: dict[str, Any]) -> str:
    """The dimension whose row carries the verdict: the one the verdict speaks of."""
    subject = result["verdict_dimension"]
    return POOLED if subject is None else str(subject)


def levels_of(result: dict[str, Any]) -> dict[str, str]:
    """The level of measurement of each dimension of a report, the pooled one included."""
    levels = {spec["key"]: spec["level"] for spec in result["dimensions"]}
    pooled = result["pooled_dimensions"]
    if pooled:
        levels[POOLED] = levels[pooled[0]]
    return levels


def summary_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    levels = levels_of(result)
    verdicts = {
        evaluation["evaluator"] or "": f"{verdict(result, evaluation)} {epsilon_note(result)}"
        for evaluation in result["evaluations"]
    }
    for evaluator, dimension, block in _blocks(result):
        yield [
            _label(result, evaluator, dimension),
            evaluator,
            dimension,
            levels[dimension],
            *_sized_cells(block, HEADLINE),
            *block_verdict(block),
            verdicts[evaluator] if dimension == _verdict_subject(result) else "",
        ]


PER_DIMENSION_HEADER = ["evaluator", "dimension", "level", "scale_min", "scale_max", *DETAIL_HEADER]


def per_dimension_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    specs = {spec["key"]: spec for spec in result["dimensions"]}
    pooled = result["pooled_dimensions"]
    if pooled:
        specs[POOLED] = {**specs[pooled[0]], "key": POOLED}
    for evaluator, dimension, block in _blocks(result):
        spec = specs[dimension]
        yield [
            evaluator,
            dimension,
            spec["level"],
            spec["scale"][0],
            spec["scale"][1],
            *_detail_cells(block),
        ]


BREAKDOWN_HEADER = [*_sized_header(BREAKDOWN), *MAE.headers, "survives_bh", "notes_label"]


def bh_survivors(groups: Sequence[RatedBlock]) -> list[bool | None]:
    """Whether each group's Pearson r survives a Benjamini–Hochberg correction at 5% across the
    groups (one breakdown table's rows); None where r has no p-value."""
    return multiplicity.bh_survivors([group.agreement.pearson.p for group in groups])


def interval_count(groups: Sequence[RatedBlock]) -> int:
    """How many 95% intervals a breakdown table of these groups shows (its columns with a CI)."""
    return sum(
        1
        for group in groups
        for column in (*BREAKDOWN, MAE)
        if column.ci is not None and column.ci(group) is not None
    )


def _multiplicity_note(groups: Sequence[RatedBlock], survivors: Sequence[bool | None]) -> str:
    """What a breakdown row shares with its table: how many intervals, and the BH family."""
    return _(
        "One of %(groups)d rows of this evaluator's table, which shows %(intervals)d 95%% "
        "intervals: with so many, some exclude 0 by chance alone. survives_bh: Pearson r's "
        "p-value survives a Benjamini–Hochberg correction at 5%% across the table's "
        "%(tested)d rows with a p-value (%(surviving)d do)."
    ) % {
        "groups": len(groups),
        "intervals": interval_count(groups),
        "tested": sum(found is not None for found in survivors),
        "surviving": sum(found is True for found in survivors),
    }


def _breakdown_rows(
    result: dict[str, Any], columns: Sequence[str], *, with_column: bool
) -> Iterator[list[CellValue]]:
    # Each (evaluator, attribute) is one table on the page, and one family for the correction.
    for evaluation in result["evaluations"]:
        evaluator = evaluation["evaluator"] or ""
        for column in columns:
            groups = [
                (dimension, value, group)
                for dimension, block in rated_blocks(evaluation)
                for value, group in block.by.get(column, {}).items()
            ]
            blocks = [group for _, _, group in groups]
            survivors = bh_survivors(blocks)
            note = _multiplicity_note(blocks, survivors)
            for (dimension, value, group), survives in zip(groups, survivors, strict=True):
                yield [
                    evaluator,
                    dimension,
                    *([column] if with_column else []),
                    value,
                    *_sized_cells(group, BREAKDOWN),
                    *MAE.cells(group),
                    survives,
                    note,
                ]


PER_SYSTEM_HEADER = ["evaluator", "dimension", "system", *BREAKDOWN_HEADER]
PER_PERSONA_HEADER = ["evaluator", "dimension", "attribute", "value", *BREAKDOWN_HEADER]


def per_system_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    return _breakdown_rows(result, ["system"], with_column=False)


def per_persona_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    return _breakdown_rows(result, PERSONA_BREAKDOWNS, with_column=True)


# The people's majority as the LLM's pick, over the items that have a majority.
LLM_MAJORITY_AGREEMENT = "llm_majority_agreement"
PAIRWISE_HEADER = [
    "evaluator",
    "dimension",
    "n_items",
    "n_judgements",
    "share_a",
    "share_b",
    "share_other",
    *ALPHA_HUMANS.headers,
    *ALPHA_HUMANS_PLUS_LLM.headers,
    *ALPHA_LLM_VS_HUMANS.headers,
    "llm_share_a",
    "n_majority_items",
    LLM_MAJORITY_AGREEMENT,
    f"{LLM_MAJORITY_AGREEMENT}_low",
    f"{LLM_MAJORITY_AGREEMENT}_high",
    # One-sided binomial test of majority agreement against chance, 0.5.
    f"{LLM_MAJORITY_AGREEMENT}_p",
    "alt_test_passed",
    "stands_in",
    "notes_label",
]


def pairwise_blocks(evaluation: dict[str, Any]) -> list[tuple[str, PairwiseBlock]]:
    """(dimension, block) of every pairwise dimension of an evaluation."""
    return [(key, PairwiseBlock.from_json(block)) for key, block in evaluation["pairwise"].items()]


def pairwise_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    for evaluation in result["evaluations"]:
        for key, block in pairwise_blocks(evaluation):
            majority = block.llm_majority_agreement_ci or (None, None)
            notes = [block.error] if block.error else []
            yield [
                evaluation["evaluator"] or "",
                key,
                block.n_items,
                block.n_judgements,
                block.share_a,
                block.share_b,
                block.share_other,
                *ALPHA_HUMANS.cells(block.rated),
                *ALPHA_HUMANS_PLUS_LLM.cells(block.rated),
                *ALPHA_LLM_VS_HUMANS.cells(block.rated),
                block.llm_share_a,
                block.n_majority_items,
                block.llm_majority_agreement,
                majority[0],
                majority[1],
                block.llm_majority_p,
                None if block.alt_test is None else block.alt_test.passed,
                None if block.verdict is None else block.verdict.stands_in,
                notes_text([*notes, *block.notes]),
            ]


TRANSCRIPT_COLUMNS = ("system", "dataset", "lang", "persona_emotion", "persona_age_group")


HUMAN_SCORES_HEADER = [
    "item",
    "annotator",
    "dimension",
    "score",
    "rationale",
    "time_on_task_ms",
    "updated_at",
    *TRANSCRIPT_COLUMNS,
    "version",
    "text",
    "b_shown_left",
]


LLM_SCORES_HEADER = [
    "item",
    "evaluator",
    "dimension",
    "score",
    "rationale",
    "imported_at",
    *TRANSCRIPT_COLUMNS,
    "version",
]


DISAGREEMENTS_HEADER = [
    "evaluator",
    "dimension",
    "item",
    "system",
    "human_mean",
    "human_scores",
    "llm_score",
    "difference",
    "relative_gap",
    "llm_rationale",
]


ALT_TEST_HEADER = [
    "evaluator",
    "dimension",
    "human",
    "n_items",
    "p_value",
    "p_adjusted",
    "rejected",
    "advantage",
]


def alt_test_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    """One row per (evaluator, dimension, tested human) of the alternative annotator test."""
    for evaluator, dimension, block in _blocks(result):
        if block.alt_test is None:
            continue
        for human in block.alt_test.humans:
            yield [
                evaluator,
                dimension,
                human.rater,
                human.n_items,
                human.p_value,
                human.p_adjusted,
                human.rejected,
                human.advantage,
            ]
