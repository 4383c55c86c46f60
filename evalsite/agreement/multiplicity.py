"""Many intervals at once: how many a breakdown shows, and which of its rows survive a
Benjamini–Hochberg correction.

A breakdown (per system, per persona attribute) gives every group its own 95% intervals and
p-values. With dozens of them some exclude 0 by chance alone: a random LLM read r = 0.36
[0.05, 0.60] in one system's row. Each breakdown therefore says how many intervals it shows, and
marks the groups whose Pearson r survives a Benjamini–Hochberg correction at 5% across the
breakdown's groups (the one family of tests its table shows together).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalsite.agreement.alt_test import benjamini_hochberg
from evalsite.agreement.results import AgreementBlock


def interval_count(block: AgreementBlock) -> int:
    """How many 95% intervals one block holds: its α values, correlations, MAE and rates."""
    alpha = block.alpha_ci
    intervals = (
        alpha.humans,
        alpha.llm_vs_humans,
        alpha.humans_pairwise,
        alpha.humans_plus_llm,
        alpha.llm_vs_human_mean,
        block.pearson.ci,
        block.spearman.ci,
        block.kendall.ci,
        block.mae_ci,
        block.exact_agreement_ci,
        block.exact_agreement_per_item_ci,
        block.within_one_ci,
    )
    return sum(interval is not None for interval in intervals)


def bh_survivors(p_values: Sequence[float | None]) -> list[bool | None]:
    """Whether each p-value survives Benjamini–Hochberg at 5% across the non-null ones; None
    where there is no p-value."""
    tested = [(index, p) for index, p in enumerate(p_values) if p is not None]
    _, kept = benjamini_hochberg([p for _, p in tested])
    found: list[bool | None] = [None] * len(p_values)
    for (index, _), survives in zip(tested, kept, strict=True):
        found[index] = bool(survives)
    return found


@dataclass(frozen=True)
class Family:
    """One breakdown's groups as a family of tests: the intervals shown, and each group's mark."""

    survives: tuple[bool | None, ...]
    intervals: int

    @property
    def tested(self) -> int:
        return sum(found is not None for found in self.survives)

    @property
    def surviving(self) -> int:
        return sum(found is True for found in self.survives)


def family(groups: Sequence[AgreementBlock]) -> Family:
    """The family of one breakdown's groups, by their Pearson r."""
    return Family(
        tuple(bh_survivors([group.pearson.p for group in groups])),
        sum(interval_count(group) for group in groups),
    )
