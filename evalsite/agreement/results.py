"""The agreement engine's typed results, and the plain JSON they are printed and cached as.

`AgreementBlock.as_json` gives exactly the keys and values that the ``agreement`` command prints
and the report caches; `AgreementBlock.from_json` reads such a block back, with None (or an
empty list) for any field it lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from evalsite.agreement.alt_test import (
    DEFAULT_MIN_ITEMS,
    AltScoring,
    AltTestHuman,
    AltTestResult,
    UntestedHuman,
)
from evalsite.agreement.common import Interval
from evalsite.agreement.phrases import from_json, texts_of
from evalsite.agreement.verdict import StandIn, stand_in

JsonObject = dict[str, object]
# The JSON name of each correlation's coefficient.
CORRELATION_SYMBOLS = {"pearson": "r", "spearman": "rho", "kendall": "tau"}


def number_of(value: object) -> float | None:
    """A JSON number as a float; None stays None."""
    return None if value is None else float(value)  # type: ignore[arg-type]


def interval_of(value: object) -> Interval | None:
    """A JSON ``[low, high]`` as an interval; anything else is None."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    low, high = value
    return float(low), float(high)


def _count_of(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _listed(interval: Interval | None) -> list[float] | None:
    return None if interval is None else list(interval)


def mapping_of(value: object) -> Mapping[str, object]:
    """A JSON object, or an empty one for anything else."""
    return value if isinstance(value, Mapping) else {}


# The JSON names of the α values, in the order they are printed.
ALPHA_NAMES = (
    "humans",
    "humans_plus_llm",
    "llm_vs_human_mean",
    "llm_vs_humans",
    "humans_pairwise",
)


@dataclass(frozen=True)
class Alphas:
    """Krippendorff's α, each over a different set of rater pairs.

    ``humans``: among the humans. ``llm_vs_humans``: α of the LLM with each human, averaged over
    humans; ``humans_pairwise``: α of each pair of humans, averaged (the ceiling to compare it
    with). ``humans_plus_llm``: the LLM as one more rater among the humans, a secondary figure
    (with two humans, two of its three pairs on an item are human–human). ``llm_vs_human_mean``:
    interval α of the LLM against the mean human score.
    """

    humans: float | None = None
    humans_plus_llm: float | None = None
    llm_vs_human_mean: float | None = None
    llm_vs_humans: float | None = None
    humans_pairwise: float | None = None

    def as_json(self) -> JsonObject:
        return {name: getattr(self, name) for name in ALPHA_NAMES}

    @classmethod
    def from_json(cls, data: object) -> Alphas:
        found = mapping_of(data)
        return cls(**{name: number_of(found.get(name)) for name in ALPHA_NAMES})


@dataclass(frozen=True)
class AlphaIntervals:
    """The bootstrap CI of each α of `Alphas`."""

    humans: Interval | None = None
    humans_plus_llm: Interval | None = None
    llm_vs_human_mean: Interval | None = None
    llm_vs_humans: Interval | None = None
    humans_pairwise: Interval | None = None

    def as_json(self) -> JsonObject:
        return {name: _listed(getattr(self, name)) for name in ALPHA_NAMES}

    @classmethod
    def from_json(cls, data: object) -> AlphaIntervals:
        found = mapping_of(data)
        return cls(**{name: interval_of(found.get(name)) for name in ALPHA_NAMES})


def alt_test_json(result: AltTestResult | None) -> JsonObject | None:
    """The alt-test as plain JSON (None stays None)."""
    if result is None:
        return None
    return {
        "epsilon": result.epsilon,
        "q": result.q,
        "scoring": result.scoring,
        "winning_rate": result.winning_rate,
        "advantage_probability": result.advantage_probability,
        "passed": result.passed,
        "humans": [
            {
                "rater": human.rater,
                "n_items": human.n_items,
                "p_value": human.p_value,
                "p_adjusted": human.p_adjusted,
                "rejected": human.rejected,
                "advantage": human.advantage,
            }
            for human in result.humans
        ],
        "untested": [{"rater": human.rater, "n_items": human.n_items} for human in result.untested],
    }


def _rows_of(value: object) -> list[Mapping[str, object]]:
    return [mapping_of(row) for row in value] if isinstance(value, list) else []


def _float(value: object, default: float) -> float:
    return float(value) if isinstance(value, int | float) else default


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


def alt_test_of(value: object) -> AltTestResult | None:
    """An alt-test read back from `alt_test_json`; None for null or anything not an object.

    The JSON does not carry ``min_items``: the engine always tests with the default.
    """
    if not isinstance(value, Mapping):
        return None
    scoring: AltScoring = "accuracy" if value.get("scoring") == "accuracy" else "neg_rmse"
    return AltTestResult(
        epsilon=_float(value.get("epsilon"), 0.0),
        q=_float(value.get("q"), 0.0),
        scoring=scoring,
        min_items=DEFAULT_MIN_ITEMS,
        winning_rate=_float(value.get("winning_rate"), 0.0),
        advantage_probability=_float(value.get("advantage_probability"), 0.0),
        passed=bool(value.get("passed")),
        humans=tuple(
            AltTestHuman(
                rater=str(row.get("rater")),
                n_items=_int(row.get("n_items")),
                p_value=_float(row.get("p_value"), 1.0),
                p_adjusted=_float(row.get("p_adjusted"), _float(row.get("p_value"), 1.0)),
                rejected=bool(row.get("rejected")),
                advantage=_float(row.get("advantage"), 0.0),
            )
            for row in _rows_of(value.get("humans"))
        ),
        untested=tuple(
            UntestedHuman(str(row.get("rater")), _int(row.get("n_items")))
            for row in _rows_of(value.get("untested"))
        ),
    )


@dataclass(frozen=True)
class Estimate:
    """A correlation's coefficient, its p-value and its bootstrap CI."""

    value: float | None = None
    p: float | None = None
    ci: Interval | None = None

    def as_json(self, symbol: str) -> JsonObject:
        return {symbol: self.value, "p": self.p, "ci": _listed(self.ci)}

    @classmethod
    def from_json(cls, data: object, symbol: str) -> Estimate:
        found = mapping_of(data)
        return cls(
            value=number_of(found.get(symbol)),
            p=number_of(found.get("p")),
            ci=interval_of(found.get("ci")),
        )


@dataclass(frozen=True)
class ChanceLevels:
    """What exact and within-one agreement would be by chance, beside the observed rates.

    ``uniform``: two raters answering uniformly at random on the scale's ``scale_points``
    points. ``marginals``: the LLM and the people answering independently, each with the shares
    of answers they gave, over the (LLM, human) pairs the rates count (Cohen's κ's chance term;
    not pooled shares). A within-one level is None wherever ``within_one`` is.
    """

    scale_points: int | None = None
    exact_uniform: float | None = None
    exact_marginals: float | None = None
    within_one_uniform: float | None = None
    within_one_marginals: float | None = None

    def as_json(self) -> JsonObject:
        return {
            "scale_points": self.scale_points,
            "exact_agreement": {"uniform": self.exact_uniform, "marginals": self.exact_marginals},
            "within_one": {
                "uniform": self.within_one_uniform,
                "marginals": self.within_one_marginals,
            },
        }

    @classmethod
    def from_json(cls, data: object) -> ChanceLevels:
        found = mapping_of(data)
        exact = mapping_of(found.get("exact_agreement"))
        within = mapping_of(found.get("within_one"))
        return cls(
            scale_points=_count_of(found.get("scale_points")),
            exact_uniform=number_of(exact.get("uniform")),
            exact_marginals=number_of(exact.get("marginals")),
            within_one_uniform=number_of(within.get("uniform")),
            within_one_marginals=number_of(within.get("marginals")),
        )


@dataclass(frozen=True)
class AgreementBlock:
    """The agreement of one dimension, or of one breakdown group within it.

    A field is None when the data admit no value; ``notes`` say why, in plain words.
    ``by`` holds the breakdown groups (column -> value -> block) when some were asked for.
    """

    n_items: int | None = None
    raters: list[str] = field(default_factory=list)
    llm: str | None = None
    level: str | None = None
    alpha: Alphas = field(default_factory=Alphas)
    alpha_ci: AlphaIntervals = field(default_factory=AlphaIntervals)
    pearson: Estimate = field(default_factory=Estimate)
    spearman: Estimate = field(default_factory=Estimate)
    kendall: Estimate = field(default_factory=Estimate)
    mae: float | None = None
    mae_ci: Interval | None = None
    exact_agreement: float | None = None
    exact_agreement_ci: Interval | None = None
    exact_agreement_per_item: float | None = None
    exact_agreement_per_item_ci: Interval | None = None
    within_one: float | None = None
    within_one_ci: Interval | None = None
    chance: ChanceLevels = field(default_factory=ChanceLevels)
    alt_test: AltTestResult | None = None
    alpha_gap_ci: Interval | None = None
    llm_distinct_answers: int | None = None
    notes: list[str] = field(default_factory=list)
    by: dict[str, dict[str, AgreementBlock]] | None = None
    verdict_withheld: str | None = None

    @property
    def verdict(self) -> StandIn | None:
        """Whether the LLM can stand in for people, by the one rule; None without an LLM, and
        None when ``verdict_withheld`` says why a pooled block gives none."""
        if self.llm is None or self.verdict_withheld is not None:
            return None
        return stand_in(
            self.alt_test,
            self.alpha_ci.llm_vs_humans,
            self.alpha_gap_ci,
            self.llm_distinct_answers,
        )

    def as_json(self) -> JsonObject:
        """Plain dicts, lists, numbers and None, ready for ``json.dumps(..., allow_nan=False)``."""
        found: JsonObject = {
            "n_items": self.n_items,
            "raters": self.raters,
            "llm": self.llm,
            "level": self.level,
            "alpha": self.alpha.as_json(),
            "alpha_ci": self.alpha_ci.as_json(),
            "pearson": self.pearson.as_json(CORRELATION_SYMBOLS["pearson"]),
            "spearman": self.spearman.as_json(CORRELATION_SYMBOLS["spearman"]),
            "kendall": self.kendall.as_json(CORRELATION_SYMBOLS["kendall"]),
            "mae": self.mae,
            "mae_ci": _listed(self.mae_ci),
            "exact_agreement": self.exact_agreement,
            "exact_agreement_ci": _listed(self.exact_agreement_ci),
            "exact_agreement_per_item": self.exact_agreement_per_item,
            "exact_agreement_per_item_ci": _listed(self.exact_agreement_per_item_ci),
            "within_one": self.within_one,
            "within_one_ci": _listed(self.within_one_ci),
            "chance": self.chance.as_json(),
            "alt_test": alt_test_json(self.alt_test),
            "alpha_gap_ci": _listed(self.alpha_gap_ci),
            "llm_distinct_answers": self.llm_distinct_answers,
            "verdict": None if self.verdict is None else self.verdict.as_json(),
            "notes": self.notes,
        }
        if self.verdict_withheld is not None:
            found["verdict_withheld"] = self.verdict_withheld
        if self.by is not None:
            found["by"] = {
                column: {value: group.as_json() for value, group in groups.items()}
                for column, groups in self.by.items()
            }
        return found

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> AgreementBlock:
        """A block read back from JSON; fields it lacks read as None (or empty)."""
        n_items = data.get("n_items")
        raters = data.get("raters")
        llm = data.get("llm")
        level = data.get("level")
        withheld = data.get("verdict_withheld_phrase", data.get("verdict_withheld"))
        return cls(
            n_items=n_items if isinstance(n_items, int) else None,
            raters=[str(name) for name in raters] if isinstance(raters, list) else [],
            llm=None if llm is None else str(llm),
            level=None if level is None else str(level),
            alpha=Alphas.from_json(data.get("alpha")),
            alpha_ci=AlphaIntervals.from_json(data.get("alpha_ci")),
            pearson=Estimate.from_json(data.get("pearson"), CORRELATION_SYMBOLS["pearson"]),
            spearman=Estimate.from_json(data.get("spearman"), CORRELATION_SYMBOLS["spearman"]),
            kendall=Estimate.from_json(data.get("kendall"), CORRELATION_SYMBOLS["kendall"]),
            mae=number_of(data.get("mae")),
            mae_ci=interval_of(data.get("mae_ci")),
            exact_agreement=number_of(data.get("exact_agreement")),
            exact_agreement_ci=interval_of(data.get("exact_agreement_ci")),
            exact_agreement_per_item=number_of(data.get("exact_agreement_per_item")),
            exact_agreement_per_item_ci=interval_of(data.get("exact_agreement_per_item_ci")),
            within_one=number_of(data.get("within_one")),
            within_one_ci=interval_of(data.get("within_one_ci")),
            chance=ChanceLevels.from_json(data.get("chance")),
            alt_test=alt_test_of(data.get("alt_test")),
            alpha_gap_ci=interval_of(data.get("alpha_gap_ci")),
            llm_distinct_answers=_count_of(data.get("llm_distinct_answers")),
            notes=texts_of(data, "notes"),
            verdict_withheld=None if withheld is None else from_json(withheld),
        )
