"""The report's pairwise block and breakdown tables against a random LLM, in seeded simulations.

No database: the report's own functions (`compute._pairwise`, `compute._dimension_block`,
`page._breakdown`) run on long frames built here. With n campaigns the Monte Carlo standard
error of a rate p is sqrt(p(1 − p)/n); for a mean, the s.d. of the values over √n.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from django.utils import translation

from annotation.report.blocks import PairwiseBlock
from annotation.report.compute import Settings, _dimension_block, _pairwise
from annotation.report.dimensions import DimensionSpec
from annotation.report.page import BreakdownTable, _breakdown

COLUMNS = ["item", "rater", "score", "is_llm", "evaluator", "system"]


@pytest.fixture(autouse=True)
def in_english() -> Iterator[None]:
    with translation.override("en"):
        yield


# Pairwise questions --------------------------------------------------------------------------

PAIRWISE = DimensionSpec("better", "Better response", "更好的回复", "pairwise", "nominal", 0, 1)
PAIRWISE_ITEMS = 80
PAIRWISE_CAMPAIGNS = 100


def pairwise_campaign(seed: int) -> PairwiseBlock:
    """80 pairs, each preferred A by people with probability 0.2 or 0.8 (half of each), three
    people who vote independently, and an LLM that picks A or B at random."""
    generator = np.random.default_rng(seed)
    prefer_a = np.where(generator.random(PAIRWISE_ITEMS) < 0.5, 0.2, 0.8)
    rows = []
    for person in range(3):
        votes = (generator.random(PAIRWISE_ITEMS) >= prefer_a).astype(float)  # 0 is A
        rows += [(f"i{i}", f"h{person}", v, False, "", "") for i, v in enumerate(votes)]
    llm = (generator.random(PAIRWISE_ITEMS) < 0.5).astype(float)
    rows += [(f"i{i}", "llm", v, True, "gpt", "") for i, v in enumerate(llm)]
    frame = pd.DataFrame(rows, columns=COLUMNS).assign(dimension=PAIRWISE.key)
    return _pairwise(frame, PAIRWISE, "llm", Settings(resamples=200, seed=seed))


@pytest.mark.monte_carlo
def test_a_random_llm_on_pairwise_questions_reads_as_chance() -> None:
    blocks = [pairwise_campaign(seed) for seed in range(PAIRWISE_CAMPAIGNS)]
    alphas = np.array([b.rated.agreement.alpha.llm_vs_humans for b in blocks], dtype=float)
    people = np.array([b.rated.agreement.alpha.humans_pairwise for b in blocks], dtype=float)
    # α LLM–humans: measured mean −0.001 (s.d. 0.09 over campaigns, so MC s.e. 0.009), against
    # 0.36 between people.
    assert abs(alphas.mean()) < 0.03, f"mean α LLM–humans {alphas.mean():.3f}, MC s.e. 0.009"
    assert people.mean() > 0.3
    # The rule: measured 1 of 100 stands in (seed 26, whose α reads 0.18 [0.04, …] by chance;
    # MC s.e. 0.01). Its checks are not independent tests: a chance-high α carries the alt-test
    # with it, so the rate is about that of the α check alone, one-sided 2.5%.
    stands_in = np.mean([b.verdict is not None and b.verdict.stands_in for b in blocks])
    assert stands_in <= 0.03, f"stands in {stands_in:.2f}, MC s.e. 0.01"
    # "Picks the human majority": measured mean 0.499 (MC s.e. 0.006), on the 0.5 chance line;
    # the one-sided binomial test against 0.5 is significant at 5% in 4 of 100 campaigns (MC
    # s.e. 0.02), as an exact test at that level should be, at most 5% give or take its error.
    majority = np.array([b.llm_majority_agreement for b in blocks], dtype=float)
    assert abs(majority.mean() - 0.5) < 0.02
    significant = np.mean(
        [b.llm_majority_p is not None and b.llm_majority_p < 0.05 for b in blocks]
    )
    assert significant <= 0.09, f"significant in {significant:.2f}, MC s.e. 0.022"


# Breakdown tables ----------------------------------------------------------------------------

QUALITY = DimensionSpec("quality", "Quality", "质量", "likert", "ordinal", 1, 5)
SYSTEMS = 10
PER_SYSTEM = 20
BREAKDOWN_CAMPAIGNS = 40


def breakdown_campaign(seed: int) -> tuple[BreakdownTable, list[float]]:
    """10 systems of 20 transcripts, three people around a true score (noise s.d. 0.8), and an
    LLM scoring 1–5 at random: the per-system table, and every row's uncorrected Pearson p."""
    generator = np.random.default_rng(seed)
    n = SYSTEMS * PER_SYSTEM
    truth = generator.normal(3, 1.1, n)
    systems = [f"s{k % SYSTEMS}" for k in range(n)]
    rows = []
    for person in range(3):
        scores = np.clip(np.rint(truth + generator.normal(0, 0.8, n)), 1, 5)
        rows += [(f"i{i}", f"h{person}", v, False, "", systems[i]) for i, v in enumerate(scores)]
    llm = generator.integers(1, 6, n).astype(float)
    rows += [(f"i{i}", "llm", v, True, "gpt", systems[i]) for i, v in enumerate(llm)]
    frame = pd.DataFrame(rows, columns=COLUMNS).assign(dimension=QUALITY.key)
    block = _dimension_block(frame, QUALITY, "llm", ["system"], Settings(resamples=0, seed=seed))
    result = {"dimensions": [{"key": "quality", "name_en": "Quality", "name_zh": "质量"}]}
    evaluation = {"pooled": None, "dimensions": {"quality": block.as_json()}}
    p_values = [
        group.agreement.pearson.p
        for group in block.by["system"].values()
        if group.agreement.pearson.p is not None
    ]
    return _breakdown(result, evaluation, "system"), p_values


@pytest.mark.monte_carlo
def test_benjamini_hochberg_keeps_a_random_llms_breakdown_rows_unmarked() -> None:
    found = [breakdown_campaign(seed) for seed in range(BREAKDOWN_CAMPAIGNS)]
    tables = [table for table, _ in found]
    assert all(table.tested == SYSTEMS for table in tables)
    # Uncorrected, some system's r reads p < 0.05 in about 1 − 0.95¹⁰ = 40% of campaigns (the
    # audit's r = 0.36 [0.05, 0.60] in one system's row); measured 19 of 40 (MC s.e. 0.08).
    uncorrected = np.mean([min(p_values) < 0.05 for _, p_values in found])
    assert uncorrected >= 0.2, f"uncorrected {uncorrected:.2f}, MC s.e. 0.08"
    # With the correction (BH at 5% across the table's rows) a row is marked in at most the 5%
    # of campaigns that BH allows under the null, where every discovery is false and the false
    # discovery rate is the chance of any mark. Measured: 1 of 40 campaigns (MC s.e. 0.034 at
    # 5%), 1 row of 400; with 30 transcripts per system, 8 of 100 campaigns (s.e. 0.027).
    marked = np.mean([table.surviving > 0 for table in tables])
    assert marked <= 0.15, f"marked in {marked:.2f} of campaigns, MC s.e. 0.034"
    rows = sum(table.surviving for table in tables) / sum(table.tested for table in tables)
    assert rows <= 0.05, f"{rows:.3f} of rows marked"
