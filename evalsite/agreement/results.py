"""The agreement engine's typed results, and the plain JSON they are printed and cached as.

`AgreementBlock.as_json` gives exactly the keys and values that the ``agreement`` command prints
and the report caches; `AgreementBlock.from_json` reads such a block back, with None (or an
empty list) for any field it lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from evalsite.agreement.common import Interval

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


def _listed(interval: Interval | None) -> list[float] | None:
    return None if interval is None else list(interval)


def mapping_of(value: object) -> Mapping[str, object]:
    """A JSON object, or an empty one for anything else."""
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class Alphas:
    """α among people, with the LLM as one more rater, and of the LLM against the human mean."""

    humans: float | None = None
    humans_plus_llm: float | None = None
    llm_vs_human_mean: float | None = None

    def as_json(self) -> JsonObject:
        return {
            "humans": self.humans,
            "humans_plus_llm": self.humans_plus_llm,
            "llm_vs_human_mean": self.llm_vs_human_mean,
        }

    @classmethod
    def from_json(cls, data: object) -> Alphas:
        found = mapping_of(data)
        return cls(
            humans=number_of(found.get("humans")),
            humans_plus_llm=number_of(found.get("humans_plus_llm")),
            llm_vs_human_mean=number_of(found.get("llm_vs_human_mean")),
        )


@dataclass(frozen=True)
class AlphaIntervals:
    """The bootstrap CI of each α of `Alphas`."""

    humans: Interval | None = None
    humans_plus_llm: Interval | None = None
    llm_vs_human_mean: Interval | None = None

    def as_json(self) -> JsonObject:
        return {
            "humans": _listed(self.humans),
            "humans_plus_llm": _listed(self.humans_plus_llm),
            "llm_vs_human_mean": _listed(self.llm_vs_human_mean),
        }

    @classmethod
    def from_json(cls, data: object) -> AlphaIntervals:
        found = mapping_of(data)
        return cls(
            humans=interval_of(found.get("humans")),
            humans_plus_llm=interval_of(found.get("humans_plus_llm")),
            llm_vs_human_mean=interval_of(found.get("llm_vs_human_mean")),
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
    within_one: float | None = None
    within_one_ci: Interval | None = None
    notes: list[str] = field(default_factory=list)
    by: dict[str, dict[str, AgreementBlock]] | None = None

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
            "within_one": self.within_one,
            "within_one_ci": _listed(self.within_one_ci),
            "notes": self.notes,
        }
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
        notes = data.get("notes")
        llm = data.get("llm")
        level = data.get("level")
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
            within_one=number_of(data.get("within_one")),
            within_one_ci=interval_of(data.get("within_one_ci")),
            notes=[str(note) for note in notes] if isinstance(notes, list) else [],
        )
