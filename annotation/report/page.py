"""What the report page shows of a computed report: its tables, figures and verdicts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy, pgettext

from annotation.models import Campaign
from annotation.report.blocks import PairwiseBlock, RatedBlock
from annotation.report.compute import PERSONA_BREAKDOWNS
from annotation.report.figures import heatmap_figure, histogram_figure, scatter_figure
from annotation.report.items import Histogram, ScatterSeries
from annotation.report.names import dimension_names, system_label
from annotation.report.rows import (
    ALPHA_HUMANS,
    ALPHA_HUMANS_PAIRWISE,
    ALPHA_HUMANS_PLUS_LLM,
    ALPHA_LLM_VS_HUMANS,
    ALT_TEST_PASSED,
    ALT_TEST_WINNING_RATE,
    BREAKDOWN,
    EXACT_AGREEMENT,
    HEADLINE,
    MAE,
    PEARSON_R,
    WITHIN_ONE,
    Column,
    bh_survivors,
    interval_count,
    levels_of,
    pairwise_blocks,
    rated_blocks,
)
from annotation.report.verdict import (
    block_verdict,
    epsilon_note,
    evaluation_of,
    failing_sentences,
    stands_in_text,
    verdict,
)
from evalsite.agreement.alt_test import AltTestResult
from evalsite.agreement.common import Interval
from evalsite.agreement.phrases import notes_text, shown

PERSONA_LABELS = {
    "persona_emotion": gettext_lazy("Persona emotion"),
    "persona_age_group": gettext_lazy("Persona age group"),
}


@dataclass(frozen=True)
class Cell:
    text: str
    n: int | None = None
    note: str = ""
    # "*" where the figure survives the table's Benjamini–Hochberg correction.
    mark: str = ""


def _number(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def estimate_cell(
    value: float | None, interval: Interval | None, notes: list[str], n: int | None = None
) -> Cell:
    """``0.53 [0.47, 0.58]`` with the number of items it rests on."""
    text = _number(value)
    if value is not None and interval:
        text += f" [{interval[0]:.2f}, {interval[1]:.2f}]"
    return Cell(text, n, notes_text(notes) if value is None else "")


def column_cell(block: RatedBlock, column: Column) -> Cell:
    """The cell of one statistic of ``block``."""
    return estimate_cell(
        column.value(block),
        None if column.ci is None else column.ci(block),
        block.notes,
        None if column.size is None else column.size(block.n),
    )


def yes_no(passed: bool) -> str:
    return pgettext("alt-test outcome", "yes") if passed else pgettext("alt-test outcome", "no")


def _alt_test_cell(block: RatedBlock) -> Cell:
    """The alt-test's winning rate and whether the LLM passed, or why there is no test."""
    alt = block.alt_test
    if alt is None:
        return Cell("—", None, notes_text(block.notes))
    return Cell(
        gettext("%(rate).2f, passed: %(passed)s")
        % {"rate": alt.winning_rate, "passed": yes_no(alt.passed)}
    )


def _headline(block: RatedBlock) -> list[Cell]:
    """The summary's cells: the alt-test's winning rate and passed share one cell."""
    return [
        _alt_test_cell(block) if column is ALT_TEST_WINNING_RATE else column_cell(block, column)
        for column in HEADLINE
        if column is not ALT_TEST_PASSED
    ]


def p_text(p: float) -> str:
    """A p-value to three decimals, ``< 0.001`` below that rather than ``0.000``."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


@dataclass(frozen=True)
class AltTestRow:
    """One tested annotator: the LLM against them, as the page prints it."""

    rater: str
    n_items: int
    p_value: str
    p_adjusted: str
    beaten: str
    advantage: str


@dataclass(frozen=True)
class AltTestPanel:
    """One dimension's alternative annotator test beside α LLM–human and α human–human."""

    key: str
    name: str
    alt_test: AltTestResult | None
    passed: str
    humans: list[AltTestRow]
    alpha_llm_vs_humans: Cell
    alpha_humans_pairwise: Cell
    note: str


def _alt_test_rows(alt: AltTestResult) -> list[AltTestRow]:
    return [
        AltTestRow(
            rater=human.rater,
            n_items=human.n_items,
            p_value=p_text(human.p_value),
            p_adjusted=p_text(human.p_adjusted),
            beaten=yes_no(human.rejected),
            advantage=f"{human.advantage:.2f}",
        )
        for human in alt.humans
    ]


def _alt_test_panels(result: dict[str, Any], evaluation: dict[str, Any]) -> list[AltTestPanel]:
    names = dimension_names(result)
    panels = []
    for key, block in rated_blocks(evaluation):
        alt = block.alt_test
        notes = [note for note in block.notes if "alt_test" in note or "alt-test" in note]
        panels.append(
            AltTestPanel(
                key=key,
                name=names[key],
                alt_test=alt,
                passed="" if alt is None else yes_no(alt.passed),
                humans=[] if alt is None else _alt_test_rows(alt),
                alpha_llm_vs_humans=column_cell(block, ALPHA_LLM_VS_HUMANS),
                alpha_humans_pairwise=column_cell(block, ALPHA_HUMANS_PAIRWISE),
                note=block.error or notes_text(notes or block.notes[:1]),
            )
        )
    return panels


@dataclass(frozen=True)
class SummaryRow:
    """One dimension (or the pooled ones) in the summary table."""

    key: str
    name: str
    level: str
    n: int | None
    cells: list[Cell]
    error: str
    # The block's own verdict by the one rule: yes, no or a dash, and the sentence saying why.
    stands_in: str = "—"
    stands_in_reason: str = ""


@dataclass(frozen=True)
class BreakdownRow:
    """One breakdown group of a dimension: a system, or a persona attribute's value."""

    dimension: str
    value: str
    n: int | None
    cells: list[Cell]


@dataclass(frozen=True)
class BreakdownTable:
    """The rows of a breakdown, with what a reader of so many intervals must be told.

    ``intervals`` counts the 95% intervals the table shows: with many, some exclude 0 by chance
    alone. ``tested`` Pearson p-values are corrected together (Benjamini–Hochberg, 5%), and
    ``surviving`` of them stay below it; their cells carry the mark.
    """

    rows: list[BreakdownRow]
    intervals: int
    tested: int
    surviving: int


@dataclass(frozen=True)
class PairwiseRow:
    """One pairwise dimension: shares of A and B, α, and the LLM's agreement with the majority."""

    name: str
    block: PairwiseBlock
    share_a: str
    share_b: str
    alpha_humans: Cell
    alpha_humans_plus_llm: Cell
    alpha_llm_vs_humans: Cell
    majority: Cell
    # Against chance (0.5), by a one-sided binomial test; empty without an LLM.
    majority_test: str
    # The one rule's verdict in words; empty without an LLM.
    verdict: str


@dataclass(frozen=True)
class RateRow:
    """Exact and within-one agreement of one dimension, each beside its chance levels."""

    key: str
    name: str
    exact: Cell
    exact_chance: str
    within_one: Cell
    within_one_chance: str


def chance_text(uniform: float | None, marginals: float | None) -> str:
    """The two chance levels of a rate, or a dash when neither is known."""
    if uniform is None and marginals is None:
        return "—"
    return gettext("%(uniform)s uniform on the scale; %(marginals)s from the observed answers") % {
        "uniform": _number(uniform),
        "marginals": _number(marginals),
    }


def _rates(result: dict[str, Any], evaluation: dict[str, Any]) -> list[RateRow]:
    names = dimension_names(result)
    rows = []
    for key, block in rated_blocks(evaluation):
        if block.error or block.agreement.exact_agreement is None:
            continue
        chance = block.agreement.chance
        rows.append(
            RateRow(
                key=key,
                name=names[key],
                exact=column_cell(block, EXACT_AGREEMENT),
                exact_chance=chance_text(chance.exact_uniform, chance.exact_marginals),
                within_one=column_cell(block, WITHIN_ONE),
                within_one_chance=chance_text(
                    chance.within_one_uniform, chance.within_one_marginals
                ),
            )
        )
    return rows


def _summary(result: dict[str, Any], evaluation: dict[str, Any]) -> list[SummaryRow]:
    names = dimension_names(result)
    levels = levels_of(result)
    return [
        SummaryRow(
            key=key,
            name=names[key],
            level=levels[key],
            n=block.n.items,
            cells=_headline(block),
            error=block.error or "",
            stands_in=stands_in_text(found),
            stands_in_reason="" if found else reason,
        )
        for key, block in rated_blocks(evaluation)
        for found, reason in [block_verdict(block)]
    ]


def _breakdown(result: dict[str, Any], evaluation: dict[str, Any], column: str) -> BreakdownTable:
    names = dimension_names(result)
    groups = [
        (names[key], value, group)
        for key, block in rated_blocks(evaluation)
        for value, group in block.by.get(column, {}).items()
    ]
    survivors = bh_survivors([group for _, _, group in groups])
    rows = []
    for (dimension, value, group), survives in zip(groups, survivors, strict=True):
        cells = [column_cell(group, each) for each in BREAKDOWN]
        if survives:
            pearson = BREAKDOWN.index(PEARSON_R)
            cells[pearson] = replace(cells[pearson], mark="*")
        rows.append(
            BreakdownRow(
                dimension=dimension,
                value=system_label(value),
                n=group.n.items,
                cells=[*cells, column_cell(group, MAE)],
            )
        )
    blocks = [group for _, _, group in groups]
    return BreakdownTable(
        rows,
        interval_count(blocks),
        sum(found is not None for found in survivors),
        sum(found is True for found in survivors),
    )


def _pairwise(result: dict[str, Any], evaluation: dict[str, Any]) -> list[PairwiseRow]:
    names = dimension_names(result)
    return [
        PairwiseRow(
            name=names[key],
            block=block,
            share_a=_percent(block.share_a),
            share_b=_percent(block.share_b),
            alpha_humans=column_cell(block.rated, ALPHA_HUMANS),
            alpha_humans_plus_llm=column_cell(block.rated, ALPHA_HUMANS_PLUS_LLM),
            alpha_llm_vs_humans=column_cell(block.rated, ALPHA_LLM_VS_HUMANS),
            majority=estimate_cell(
                block.llm_majority_agreement, block.llm_majority_agreement_ci, block.notes
            ),
            majority_test=_majority_test(block),
            verdict=""
            if block.verdict is None
            else gettext("%(dimension)s: %(reason)s")
            % {"dimension": names[key], "reason": shown(block.verdict.sentence)},
        )
        for key, block in pairwise_blocks(evaluation)
    ]


def _majority_test(block: PairwiseBlock) -> str:
    if block.llm_majority_p is None:
        return ""
    return gettext("chance 50%%; p = %(p).3f against chance") % {"p": block.llm_majority_p}


def _percent(share: float | None) -> str:
    return "—" if share is None else f"{share:.0%}"


def _disagreements(
    campaign: Campaign, result: dict[str, Any], evaluation: dict[str, Any]
) -> list[dict[str, Any]]:
    names = dimension_names(result)
    rows = []
    for row in evaluation["disagreements"]:
        link = (
            reverse("annotation:transcript_scores", args=[campaign.pk, row["transcript"]])
            if row.get("transcript")
            else None
        )
        rows.append(
            {
                **row,
                "name": names.get(row["dimension"], row["dimension"]),
                "url": link,
                "humans_text": ", ".join(f"{value:g}" for value in row["humans"]),
                "human_mean_text": _number(row["human_mean"]),
                "difference_text": f"{row['difference']:+.2f}",
            }
        )
    return rows


def report_context(
    campaign: Campaign, result: dict[str, Any], evaluator: str | None
) -> dict[str, Any]:
    """Everything the page shows of a computed report, for one chosen LLM evaluator."""
    evaluation = evaluation_of(result, evaluator)
    chosen = evaluation["evaluator"]
    names = dimension_names(result)
    specs = {spec["key"]: {**spec, "name": names[spec["key"]]} for spec in result["dimensions"]}
    scatters = [
        scatter_figure(
            specs[key], ScatterSeries.from_json(points), chosen or "", result["seed"], position
        )
        for position, (key, points) in enumerate(evaluation["scatter"].items())
        if points["points"]
    ]
    histograms = [
        histogram_figure(spec, Histogram.from_json(result["histograms"][key]), chosen)
        for key, spec in specs.items()
    ]
    return {
        "result": result,
        "computed_at": datetime.fromisoformat(result["computed_at"]),
        "evaluation": evaluation,
        "evaluator": chosen,
        "verdict": verdict(result, evaluation),
        "failing": failing_sentences(result, evaluation),
        "epsilon_note": epsilon_note(result),
        "alt_tests": _alt_test_panels(result, evaluation) if chosen else [],
        "summaries": [
            {
                "evaluator": each["evaluator"],
                "rows": _summary(result, each),
                "verdict": verdict(result, each),
            }
            for each in result["evaluations"]
        ],
        "pairwise": _pairwise(result, evaluation),
        "rates": _rates(result, evaluation) if chosen else [],
        "per_system": _breakdown(result, evaluation, "system"),
        "per_persona": [
            {
                "label": PERSONA_LABELS[column],
                "table_id": f"per-{column.replace('_', '-')}",
                "table": _breakdown(result, evaluation, column),
            }
            for column in PERSONA_BREAKDOWNS
            if column in result["breakdowns"]
        ],
        "scatters": scatters,
        "heatmap": heatmap_figure(result, evaluation),
        "histograms": histograms,
        "disagreements": _disagreements(campaign, result, evaluation),
        "pooled_names": [names[key] for key in result["pooled_dimensions"]],
    }
