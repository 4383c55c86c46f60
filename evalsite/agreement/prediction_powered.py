"""People's mean stretched by an LLM judge without its bias: prediction-powered estimates.

A group's items were all scored by an LLM; people rated a uniform random sample of them. Y is the
human value of a rated item (the mean of its people's scores), f its LLM score, and f̃ the LLM
scores of the items no person rated. Every function here is pure numpy/scipy over those arrays.

- `classical_mean`: the people's mean and its CLT interval, mean ± z·sd/√n (sd with ddof 0,
  as `ppi_py.classical_mean_ci`).
- `ppi_mean`: PPI++ (Angelopoulos, Duchi and Zrnic 2023, arXiv 2311.01453) with power tuning,
  θ̂ = λ·mean(f̃) + mean(Y − λf), λ = cov(Y, f) / ((1 + n/N)·var(f ∪ f̃)), clipped to [0, 1],
  and the interval θ̂ ± z·√(λ²var(f̃)/N + var(Y − λf)/n). These are, to rounding, the numbers of
  ``ppi_py`` 0.2.3's ``ppi_mean_pointestimate`` and ``ppi_mean_ci`` with ``lam=None``: that
  library clips λ to [0, 1] itself (``_calc_lam_glm(..., clip=True)``), so clipping makes no
  difference between the two. λ = 0 is the classical estimate; λ = 1 is the original PPI.
- `rogan_gladen`: for 0/1 measures, the LLM's positive rate p on the unrated items corrected by
  its specificity q0 and sensitivity q1 measured on the rated ones (Lee et al. 2025, arXiv
  2511.21140), θ = (p + q0 − 1)/(q0 + q1 − 1), with a delta-method interval over the three
  independent proportions.
- `needed_ratings`: how many human ratings give a target half-width, with and without the LLM.

When the estimates cannot be computed, `StatisticUndefined` says why in a translatable sentence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.stats import norm

from evalsite.agreement.common import FloatArray, Interval, StatisticUndefined, finite
from evalsite.agreement.phrases import Phrase, gettext_noop

DEFAULT_ALPHA = 0.05
# Two rated items are the fewest with a spread; one unrated item the fewest the LLM can add.
MIN_LABELED = 2
TOO_FEW_RATED = Phrase(gettext_noop("people rated fewer than %(least)s items"), least=MIN_LABELED)
NOTHING_UNRATED = Phrase(gettext_noop("the LLM scored no item that people did not"))


@dataclass(frozen=True)
class MeanEstimates:
    """One group's estimates of the people's mean (see the module docstring)."""

    n_labeled: int
    n_unlabeled: int
    classical_mean: float
    classical_ci: Interval
    llm_only_mean: float
    ppi_mean: float
    ppi_ci: Interval
    lam: float
    effective_labels: float


@dataclass(frozen=True)
class RoganGladen:
    """The LLM's positive rate corrected by its sensitivity and specificity.

    ``rate`` and ``ci`` are clipped to [0, 1]; ``clipped`` says whether the unclipped estimate
    or an end of its interval lay outside.
    """

    rate: float
    ci: Interval
    llm_rate: float
    sensitivity: float
    specificity: float
    n_test: int
    n_positive: int
    n_negative: int
    clipped: bool


@dataclass(frozen=True)
class NeededRatings:
    """Human ratings that give a target CI half-width: from people alone, and with the LLM.

    ``ppi`` assumes the LLM keeps scoring every item of a pool as large as the group's is now
    (``pool`` items), the people rating a uniform random sample of it.
    """

    half_width: float
    classical: int
    ppi: int
    pool: int


def _z(alpha: float) -> float:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1, not {alpha}")
    return float(norm.ppf(1 - alpha / 2))


def _arrays(
    human: npt.ArrayLike, llm_labeled: npt.ArrayLike, llm_unlabeled: npt.ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    y = np.asarray(human, dtype=np.float64).ravel()
    f = np.asarray(llm_labeled, dtype=np.float64).ravel()
    f_unlabeled = np.asarray(llm_unlabeled, dtype=np.float64).ravel()
    if len(y) != len(f):
        raise ValueError("human and llm_labeled need one value per rated item")
    if not (np.isfinite(y).all() and np.isfinite(f).all() and np.isfinite(f_unlabeled).all()):
        raise ValueError("every score must be a finite number")
    if len(y) < MIN_LABELED:
        raise StatisticUndefined(TOO_FEW_RATED)
    return y, f, f_unlabeled


def classical_mean(human: npt.ArrayLike, alpha: float = DEFAULT_ALPHA) -> tuple[float, Interval]:
    """The mean of ``human`` and its CLT interval mean ± z·sd/√n, sd with ddof 0.

    Equals ``ppi_py.classical_mean_ci(Y, alpha=alpha)``. Needs at least two values.
    """
    y = np.asarray(human, dtype=np.float64).ravel()
    if len(y) < MIN_LABELED:
        raise StatisticUndefined(TOO_FEW_RATED)
    mean = finite(y.mean())
    half = _z(alpha) * float(y.std()) / math.sqrt(len(y))
    return mean, (mean - half, mean + half)


def power_tuning(
    human: npt.ArrayLike, llm_labeled: npt.ArrayLike, llm_unlabeled: npt.ArrayLike
) -> float:
    """PPI++'s λ for a mean, clipped to [0, 1], as ``ppi_py`` 0.2.3 estimates it.

    λ = cov(Y, f) / ((1 + n/N)·var(f ∪ f̃)): the covariance over the n rated items with
    divisor n, the variance over all n + N LLM scores with divisor n + N − 1. It minimises the
    estimate's variance; outside [0, 1] it is clipped, as ``ppi_py`` does. An LLM whose scores
    do not vary carries no information: λ = 0 (``ppi_py`` gives NaN there).
    """
    y, f, f_unlabeled = _arrays(human, llm_labeled, llm_unlabeled)
    n, big_n = len(y), len(f_unlabeled)
    if big_n == 0:
        raise StatisticUndefined(NOTHING_UNRATED)
    covariance = float(((y - y.mean()) * (f - f.mean())).sum()) / n
    spread = float(np.var(np.concatenate([f, f_unlabeled]), ddof=1))
    if spread <= 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / big_n) * spread), 0.0, 1.0))


def ppi_mean(
    human: npt.ArrayLike,
    llm_labeled: npt.ArrayLike,
    llm_unlabeled: npt.ArrayLike,
    alpha: float = DEFAULT_ALPHA,
    lam: float | None = None,
) -> tuple[float, Interval, float]:
    """The PPI++ estimate of the people's mean, its 1 − alpha interval, and λ.

    θ̂ = λ·mean(f̃) + mean(Y − λf); the interval is θ̂ ± z·√(λ²·sd(f̃)²/N + sd(Y − λf)²/n), sd with
    ddof 0. ``lam=None`` tunes λ by `power_tuning`. Equals ``ppi_py``'s
    ``ppi_mean_pointestimate`` and ``ppi_mean_ci`` with the same ``lam``.
    """
    y, f, f_unlabeled = _arrays(human, llm_labeled, llm_unlabeled)
    tuned = power_tuning(y, f, f_unlabeled) if lam is None else lam
    if len(f_unlabeled) == 0:
        raise StatisticUndefined(NOTHING_UNRATED)
    estimate = finite(tuned * f_unlabeled.mean() + (y - tuned * f).mean())
    variance = (tuned * f_unlabeled).var() / len(f_unlabeled) + (y - tuned * f).var() / len(y)
    half = _z(alpha) * math.sqrt(float(variance))
    return estimate, (estimate - half, estimate + half), tuned


def mean_estimates(
    human: npt.ArrayLike,
    llm_labeled: npt.ArrayLike,
    llm_unlabeled: npt.ArrayLike,
    alpha: float = DEFAULT_ALPHA,
) -> MeanEstimates:
    """The classical, LLM-only and PPI++ estimates of one group, and the effective labels.

    ``llm_only_mean`` is the LLM's mean over all the group's items, rated or not: biased by
    whatever the LLM gets wrong. ``effective_labels`` is n·(classical width / PPI width)²: how
    many human ratings alone would give the PPI interval's width (n when either width is 0).
    """
    y, f, f_unlabeled = _arrays(human, llm_labeled, llm_unlabeled)
    mean, interval = classical_mean(y, alpha)
    estimate, ppi_interval, lam = ppi_mean(y, f, f_unlabeled, alpha)
    classical_width = interval[1] - interval[0]
    ppi_width = ppi_interval[1] - ppi_interval[0]
    effective = (
        len(y) * (classical_width / ppi_width) ** 2
        if ppi_width > 0 and classical_width > 0
        else float(len(y))
    )
    return MeanEstimates(
        n_labeled=len(y),
        n_unlabeled=len(f_unlabeled),
        classical_mean=mean,
        classical_ci=interval,
        llm_only_mean=float(np.concatenate([f, f_unlabeled]).mean()),
        ppi_mean=estimate,
        ppi_ci=ppi_interval,
        lam=lam,
        effective_labels=float(effective),
    )


def _binary(values: FloatArray, undefined: Phrase) -> npt.NDArray[np.bool_]:
    if not np.isin(values, (0.0, 1.0)).all():
        raise StatisticUndefined(undefined)
    ones: npt.NDArray[np.bool_] = values == 1.0
    return ones


def rogan_gladen(
    human: npt.ArrayLike,
    llm_labeled: npt.ArrayLike,
    llm_unlabeled: npt.ArrayLike,
    alpha: float = DEFAULT_ALPHA,
) -> RoganGladen:
    """The Rogan–Gladen corrected rate θ = (p + q0 − 1)/(q0 + q1 − 1) and its delta-method CI.

    p is the LLM's share of 1s on the n_test items no person rated (the test set); q1 (its
    sensitivity) is its share of 1s on the rated items people gave 1, and q0 (its specificity)
    its share of 0s on those people gave 0 (the calibration set). The three are independent
    binomial proportions, so with D = q0 + q1 − 1 the delta method gives

        Var(θ̂) ≈ [p(1 − p)/n_test + (1 − θ)²·q0(1 − q0)/m0 + θ²·q1(1 − q1)/m1] / D²

    (∂θ/∂p = 1/D, ∂θ/∂q0 = (1 − θ)/D, ∂θ/∂q1 = −θ/D), as in Lee et al. 2025. The interval is
    θ̂ ± z·√Var around the unclipped θ̂; then θ̂ and both ends are clipped to [0, 1].

    Undefined when a score is not 0 or 1, when people gave only 1s or only 0s, when no item was
    left unrated, and when q0 + q1 ≤ 1: an LLM no better than chance cannot be corrected.
    """
    y, f, f_unlabeled = _arrays(human, llm_labeled, llm_unlabeled)
    truth = _binary(y, Phrase(gettext_noop("people's scores are not all 0 or 1")))
    not_binary = Phrase(gettext_noop("the LLM's scores are not all 0 or 1"))
    said = _binary(f, not_binary)
    test = _binary(f_unlabeled, not_binary)
    m1, m0 = int(truth.sum()), int((~truth).sum())
    if m1 == 0 or m0 == 0:
        raise StatisticUndefined(
            Phrase(gettext_noop("people's ratings hold no 1 or no 0 to measure the LLM against"))
        )
    if len(test) == 0:
        raise StatisticUndefined(NOTHING_UNRATED)
    q1 = float(said[truth].mean())
    q0 = float((~said[~truth]).mean())
    p = float(test.mean())
    d = q0 + q1 - 1
    if d <= 0:
        raise StatisticUndefined(
            Phrase(
                gettext_noop(
                    "the LLM's sensitivity plus its specificity is %(sum)s, not above 1: "
                    "it is no better than chance, and its rate cannot be corrected"
                ),
                sum=f"{q0 + q1:.3f}",
            )
        )
    theta = (p + q0 - 1) / d
    variance = (
        p * (1 - p) / len(test)
        + (1 - theta) ** 2 * q0 * (1 - q0) / m0
        + theta**2 * q1 * (1 - q1) / m1
    ) / d**2
    half = _z(alpha) * math.sqrt(variance)
    low, high = theta - half, theta + half
    return RoganGladen(
        rate=float(np.clip(theta, 0.0, 1.0)),
        ci=(float(np.clip(low, 0.0, 1.0)), float(np.clip(high, 0.0, 1.0))),
        llm_rate=p,
        sensitivity=q1,
        specificity=q0,
        n_test=len(test),
        n_positive=m1,
        n_negative=m0,
        clipped=bool(low < 0 or high > 1),
    )


def needed_ratings(
    human: npt.ArrayLike,
    llm_labeled: npt.ArrayLike,
    llm_unlabeled: npt.ArrayLike,
    half_width: float,
    alpha: float = DEFAULT_ALPHA,
) -> NeededRatings:
    """Human ratings that give a CI half-width of at most ``half_width``, from the variances
    measured so far.

    People alone: the smallest n with z·sd(Y)/√n ≤ h. With the LLM scoring a pool of M = n + N
    items (as large as now): the smallest n < M whose PPI++ half-width
    z·√(λ²·var(f)/(M − n) + var(Y − λf)/n), with λ tuned for that n, is at most h; the LLM
    cannot narrow an interval once people rate the whole pool, so when no n < M reaches h the
    answer is the classical one. var(Y), var(f) and cov(Y, f) are those measured now (ddof 0).
    """
    if not half_width > 0:
        raise ValueError(f"the target half-width must be positive, not {half_width}")
    y, f, f_unlabeled = _arrays(human, llm_labeled, llm_unlabeled)
    z = _z(alpha)
    var_y = float(y.var())
    classical = max(math.ceil((z / half_width) ** 2 * var_y - 1e-9), MIN_LABELED)
    scores = np.concatenate([f, f_unlabeled])
    pool = len(scores)
    var_f = float(scores.var())
    covariance = float(((y - y.mean()) * (f - f.mean())).mean())
    n = np.arange(MIN_LABELED, max(pool, MIN_LABELED + 1), dtype=np.float64)
    unlabeled = pool - n
    if var_f > 0:
        lam = np.clip(covariance / ((1 + n / unlabeled) * var_f), 0.0, 1.0)
    else:
        lam = np.zeros_like(n)
    rectifier = var_y - 2 * lam * covariance + lam**2 * var_f
    half = z * np.sqrt(np.maximum(lam**2 * var_f / unlabeled + rectifier / n, 0.0))
    reached = np.flatnonzero((half <= half_width + 1e-12) & (unlabeled > 0))
    ppi = min(int(n[reached[0]]), classical) if len(reached) else classical
    return NeededRatings(half_width=half_width, classical=classical, ppi=ppi, pool=pool)
