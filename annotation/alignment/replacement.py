"""The answer to "Can this evaluator replace people?", judged on held-out items only.

The best version is the one `comparison.best_version` chose on the calibration split. On each
dimension it is judged by the scores it would be used with: calibrated when its map (fitted on
the calibration split) is not near-constant, raw otherwise. It can stand in for people on a
dimension when, on the held-out items, those scores meet the one rule of
`evalsite.agreement.verdict`: the alternative annotator test at the campaign's ε passes, the CI
of its α with people lies above 0 and reaches α between people, and its answers vary.
A gain is claimed only when its paired CI lies above 0; otherwise the verdict says there is no
evidence of improvement. A collapsed map's lower MAE is shown and never taken as evidence.

Calibration pulls scores toward the people's mean, which the neg-RMSE alt-test rewards; so when
the calibrated scores judged spread less than `SHRUNK_SPREAD_RATIO` of the people's s.d. on the
same held-out items, the verdict says so in a sentence of its own (`spread_sentence`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from annotation.alignment.comparison import VersionOnDimension
from annotation.alignment.figures import SHRUNK_SPREAD_RATIO, AgreementFigures
from annotation.alignment.paired import PairedDifference
from evalsite.agreement.phrases import shown


@dataclass(frozen=True)
class DimensionVerdict:
    """The best version on one dimension: the figures judged, and what they show."""

    dimension: str
    name: str
    calibrated: bool
    figures: AgreementFigures
    stands_in: bool
    collapsed_note: str | None
    calibration_gain: PairedDifference | None
    gain_over_first: PairedDifference | None


@dataclass(frozen=True)
class ReplacementVerdict:
    """The verdict on the best version: per dimension, and in sentences."""

    version: str | None
    epsilon: float
    dimensions: tuple[DimensionVerdict, ...]
    sentences: tuple[str, ...]

    @property
    def stands_in(self) -> bool:
        return bool(self.dimensions) and all(row.stands_in for row in self.dimensions)


def dimension_verdict(row: VersionOnDimension, name: str) -> DimensionVerdict:
    fitted = row.calibration_map
    use_calibrated = fitted is not None and not fitted.collapsed and row.calibrated is not None
    figures = row.calibrated if use_calibrated and row.calibrated is not None else row.held_out
    return DimensionVerdict(
        dimension=row.dimension,
        name=name,
        calibrated=use_calibrated,
        figures=figures,
        stands_in=figures.verdict.stands_in,
        collapsed_note=fitted.note if fitted is not None and fitted.collapsed else None,
        calibration_gain=row.calibration_gain,
        gain_over_first=row.gain_over_first,
    )


def spread_sentence(name: str, figures: AgreementFigures) -> str | None:
    """What calibration did to the spread of the scores, when it shrank them; else None."""
    spread = figures.spread
    if spread is None or not spread.shrunk or spread.ratio is None:
        return None
    return _(
        "%(dimension)s: calibration shrinks the spread of the scores: on the held-out items "
        "their s.d. is %(llm).2f against %(people).2f for people's scores (%(ratio).2f times, "
        "below %(limit)s). A calibrated score predicts the people's mean, not one person's "
        "answer, and the alternative annotator test rewards that."
    ) % {
        "dimension": name,
        "llm": spread.llm_sd,
        "people": spread.people_sd,
        "ratio": spread.ratio,
        "limit": f"{SHRUNK_SPREAD_RATIO:g}",
    }


def _interval(difference: PairedDifference) -> str:
    bounds = difference.interval.bounds
    if bounds is None:
        return _("no CI: %(note)s") % {"note": shown(difference.interval.note or "")}
    return _("95%% CI [%(low).2f, %(high).2f]") % {"low": bounds[0], "high": bounds[1]}


def _gain_sentence(
    name: str, difference: PairedDifference | None, collapsed_note: str | None
) -> str | None:
    if difference is None or difference.gain is None:
        return None
    values = {
        "dimension": name,
        "before": difference.mae_before,
        "after": difference.mae_after,
        "gain": difference.gain,
        "interval": _interval(difference),
    }
    if collapsed_note is not None:
        return (
            _(
                "%(dimension)s: the calibration map collapses to a near-constant, so its "
                "held-out MAE (%(before).2f → %(after).2f) is not taken as evidence."
            )
            % values
        )
    if difference.shows_improvement:
        return (
            _(
                "%(dimension)s: calibration lowers the held-out MAE from %(before).2f to "
                "%(after).2f (gain %(gain).2f, %(interval)s)."
            )
            % values
        )
    return (
        _(
            "%(dimension)s: no evidence that calibration improves the evaluator on held-out "
            "items (gain %(gain).2f, %(interval)s includes 0 or is missing)."
        )
        % values
    )


def replacement_verdict(
    version: str | None,
    rows: Sequence[VersionOnDimension],
    *,
    epsilon: float,
    names: Mapping[str, str],
) -> ReplacementVerdict:
    """The verdict on ``version`` from its rows (one per dimension); ``names`` names dimensions."""
    if version is None or not rows:
        sentence = _(
            "No evaluator version has scored items of both splits yet, so there is no verdict."
        )
        return ReplacementVerdict(None, epsilon, (), (sentence,))
    verdicts = tuple(
        dimension_verdict(row, names.get(row.dimension, row.dimension)) for row in rows
    )
    passing = [row.name for row in verdicts if row.stands_in]
    failing = [row.name for row in verdicts if not row.stands_in]
    values = {"version": version, "epsilon": epsilon}
    if not failing:
        opening = (
            _(
                "On the held-out items, %(version)s can stand in for people on every dimension "
                "(alt-test passed at ε = %(epsilon)g; α with people above 0 and not "
                "significantly below α between people; answers that vary)."
            )
            % values
        )
    elif not passing:
        opening = (
            _(
                "On the held-out items there is no evidence that %(version)s can stand in for "
                "people: on no dimension does it meet every check (alt-test at ε = "
                "%(epsilon)g, α with people above 0 and not significantly below α between "
                "people, answers that vary)."
            )
            % values
        )
    else:
        opening = _(
            "On the held-out items, %(version)s can stand in for people on %(passing)s "
            "only; on %(failing)s there is no evidence that it can (ε = %(epsilon)g)."
        ) % {**values, "passing": ", ".join(passing), "failing": ", ".join(failing)}
    sentences = [opening]
    for row in verdicts:
        if not row.stands_in:
            sentences.append(
                _("%(dimension)s: %(reason)s")
                % {"dimension": row.name, "reason": shown(row.figures.verdict.sentence)}
            )
    for row in verdicts:
        shrunk = spread_sentence(row.name, row.figures) if row.calibrated else None
        if shrunk is not None:
            sentences.append(shrunk)
    for row in verdicts:
        gain = _gain_sentence(row.name, row.calibration_gain, row.collapsed_note)
        if gain is not None:
            sentences.append(gain)
    return ReplacementVerdict(version, epsilon, verdicts, tuple(sentences))
