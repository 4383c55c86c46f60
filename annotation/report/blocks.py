"""The blocks of a computed report, read back from its JSON as typed values.

A report is cached as plain JSON (the job's ``result``). Its readers (the page, the figures,
the verdict and the exports) take each block through `RatedBlock.from_json` or
`PairwiseBlock.from_json`, so that a field is reached by attribute, and a field a block lacks
(a block that failed, or none at all) reads as None.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from evalsite.agreement.alt_test import AltTestResult
from evalsite.agreement.common import Interval
from evalsite.agreement.phrases import phrases_json, texts_of, to_json
from evalsite.agreement.results import (
    AgreementBlock,
    AlphaIntervals,
    Alphas,
    JsonObject,
    alt_test_json,
    alt_test_of,
    interval_of,
    mapping_of,
    number_of,
)
from evalsite.agreement.verdict import StandIn


def _count(value: object) -> int | None:
    return value if isinstance(value, int) else None


@dataclass(frozen=True)
class Sizes:
    """How many items each statistic rests on (the block's ``n``)."""

    items: int | None = None
    alpha_humans: int | None = None
    alpha_humans_plus_llm: int | None = None
    paired: int | None = None

    def as_json(self) -> JsonObject:
        return {
            "items": self.items,
            "alpha_humans": self.alpha_humans,
            "alpha_humans_plus_llm": self.alpha_humans_plus_llm,
            "paired": self.paired,
        }

    @classmethod
    def from_json(cls, data: object) -> Sizes:
        found = mapping_of(data)
        return cls(
            items=_count(found.get("items")),
            alpha_humans=_count(found.get("alpha_humans")),
            alpha_humans_plus_llm=_count(found.get("alpha_humans_plus_llm")),
            paired=_count(found.get("paired")),
        )


@dataclass(frozen=True)
class RatedBlock:
    """The agreement of a rated dimension, of the pooled dimensions, or of one breakdown group.

    ``error`` says why the engine could not analyse the scores; ``by`` holds the breakdown
    groups (column -> value -> block); ``dimensions`` the keys a pooled block pools.
    """

    agreement: AgreementBlock = field(default_factory=AgreementBlock)
    n: Sizes = field(default_factory=Sizes)
    error: str | None = None
    by: dict[str, dict[str, RatedBlock]] = field(default_factory=dict)
    dimensions: list[str] = field(default_factory=list)

    @property
    def notes(self) -> list[str]:
        return self.agreement.notes

    @property
    def alt_test(self) -> AltTestResult | None:
        return self.agreement.alt_test

    def as_json(self) -> JsonObject:
        """The block as the report stores it: the engine's fields, then ``by`` and ``n``; only
        ``error`` for a block that failed; ``dimensions`` for a pooled block."""
        found: JsonObject
        if self.error is not None:
            found = {"error": self.error}
        else:
            found = self.agreement.as_json()
            if self.by:
                found["by"] = {
                    column: {value: group.as_json() for value, group in groups.items()}
                    for column, groups in self.by.items()
                }
            found["n"] = self.n.as_json()
            found["notes_phrases"] = phrases_json(self.notes)
            if self.agreement.verdict_withheld is not None:
                found["verdict_withheld_phrase"] = to_json(self.agreement.verdict_withheld)
        if self.dimensions:
            found["dimensions"] = self.dimensions
        return found

    @classmethod
    def from_json(cls, data: Mapping[str, object] | None) -> RatedBlock:
        if not data:
            return cls()
        error = data.get("error")
        dimensions = data.get("dimensions")
        return cls(
            agreement=AgreementBlock.from_json(data),
            n=Sizes.from_json(data.get("n")),
            error=str(error) if error else None,
            by={
                str(column): {
                    str(value): cls.from_json(mapping_of(group))
                    for value, group in mapping_of(groups).items()
                }
                for column, groups in mapping_of(data.get("by")).items()
            },
            dimensions=[str(key) for key in dimensions] if isinstance(dimensions, list) else [],
        )


@dataclass(frozen=True)
class PairwiseBlock:
    """A pairwise dimension: which response people prefer, how far they agree (α), and how
    often the LLM picks the people's majority."""

    n_items: int | None = None
    n_judgements: int | None = None
    share_a: float | None = None
    share_b: float | None = None
    share_other: float | None = None
    error: str | None = None
    alpha: Alphas = field(default_factory=Alphas)
    alpha_ci: AlphaIntervals = field(default_factory=AlphaIntervals)
    notes: list[str] = field(default_factory=list)
    n: Sizes = field(default_factory=Sizes)
    llm_share_a: float | None = None
    llm_majority_agreement: float | None = None
    llm_majority_agreement_ci: Interval | None = None
    n_majority_items: int | None = None
    # The one-sided binomial test of majority agreement against chance (0.5: two answers).
    llm_majority_p: float | None = None
    # The engine's figures for the verdict: the LLM, its alt-test and α gap, its answers.
    llm: str | None = None
    alt_test: AltTestResult | None = None
    alpha_gap_ci: Interval | None = None
    llm_distinct_answers: int | None = None

    def as_json(self) -> JsonObject:
        """The block as the report stores it; α, its CI and ``n`` are null when it failed."""
        failed = self.error is not None
        return {
            "n_items": self.n_items,
            "n_judgements": self.n_judgements,
            "share_a": self.share_a,
            "share_b": self.share_b,
            "share_other": self.share_other,
            "error": self.error,
            "alpha": None if failed else self.alpha.as_json(),
            "alpha_ci": None if failed else self.alpha_ci.as_json(),
            "notes": self.notes,
            "notes_phrases": phrases_json(self.notes),
            "n": None if failed else self.n.as_json(),
            "llm_share_a": self.llm_share_a,
            "llm_majority_agreement": self.llm_majority_agreement,
            "llm_majority_agreement_ci": (
                None
                if self.llm_majority_agreement_ci is None
                else list(self.llm_majority_agreement_ci)
            ),
            "n_majority_items": self.n_majority_items,
            "llm_majority_p": self.llm_majority_p,
            "llm": self.llm,
            "alt_test": alt_test_json(self.alt_test),
            "alpha_gap_ci": None if self.alpha_gap_ci is None else list(self.alpha_gap_ci),
            "llm_distinct_answers": self.llm_distinct_answers,
            "verdict": None if self.verdict is None else self.verdict.as_json(),
        }

    @property
    def rated(self) -> RatedBlock:
        """Its α, alt-test and verdict as a rated block, so that columns read it like any other."""
        agreement = AgreementBlock(
            llm=self.llm,
            alpha=self.alpha,
            alpha_ci=self.alpha_ci,
            alt_test=self.alt_test,
            alpha_gap_ci=self.alpha_gap_ci,
            llm_distinct_answers=self.llm_distinct_answers,
            notes=self.notes,
        )
        return RatedBlock(agreement=agreement, n=self.n, error=self.error)

    @property
    def verdict(self) -> StandIn | None:
        """Whether the LLM can stand in for people on this question, by the one rule."""
        return None if self.error is not None else self.rated.agreement.verdict

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> PairwiseBlock:
        error = data.get("error")
        return cls(
            n_items=_count(data.get("n_items")),
            n_judgements=_count(data.get("n_judgements")),
            share_a=number_of(data.get("share_a")),
            share_b=number_of(data.get("share_b")),
            share_other=number_of(data.get("share_other")),
            error=str(error) if error else None,
            alpha=Alphas.from_json(data.get("alpha")),
            alpha_ci=AlphaIntervals.from_json(data.get("alpha_ci")),
            notes=texts_of(data, "notes"),
            n=Sizes.from_json(data.get("n")),
            llm_share_a=number_of(data.get("llm_share_a")),
            llm_majority_agreement=number_of(data.get("llm_majority_agreement")),
            llm_majority_agreement_ci=interval_of(data.get("llm_majority_agreement_ci")),
            n_majority_items=_count(data.get("n_majority_items")),
            llm_majority_p=number_of(data.get("llm_majority_p")),
            llm=None if data.get("llm") is None else str(data.get("llm")),
            alt_test=alt_test_of(data.get("alt_test")),
            alpha_gap_ci=interval_of(data.get("alpha_gap_ci")),
            llm_distinct_answers=_count(data.get("llm_distinct_answers")),
        )
