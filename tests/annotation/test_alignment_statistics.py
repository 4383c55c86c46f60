"""The judge-alignment statistics on hand-made and synthetic data (no database)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from django.utils import translation

from annotation.alignment.calibration import fit_calibration
from annotation.alignment.comparison import DimensionScores, best_version, compare_versions
from annotation.alignment.confusion import ordinal_confusion
from annotation.alignment.consensus import human_consensus, human_spread
from annotation.alignment.figures import SHRUNK_SPREAD_RATIO, score_spread
from annotation.alignment.paired import paired_mae_difference
from annotation.alignment.replacement import replacement_verdict
from annotation.alignment.split import calibration_items
from evalsite.agreement.phrases import Phrase, reason_of, shown
from evalsite.agreement.scale_step import TWO_VALUES
from evalsite.agreement.score_matrix import ScoreMatrix

POINTS = np.arange(1.0, 6.0)
N_ITEMS = 240
RESAMPLES = 200


def synthetic(seed: int = 7) -> tuple[ScoreMatrix, np.ndarray]:
    """Three humans around a true score 1–5 (one point off 30% of the time) and the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, N_ITEMS).astype(float)
    noise = rng.choice([-1.0, 0.0, 1.0], size=(N_ITEMS, 3), p=[0.15, 0.7, 0.15])
    humans = np.clip(truth[:, None] + noise, 1, 5)
    items = tuple(f"t{n}" for n in range(N_ITEMS))
    return ScoreMatrix(items, ("ann", "bo", "cy"), humans, np.full(N_ITEMS, np.nan)), truth


def split_mask(seed: int = 1) -> np.ndarray:
    calibration = calibration_items(range(N_ITEMS), seed=seed, calibration_share=0.5)
    return np.array([n in calibration for n in range(N_ITEMS)])


def dimension(
    versions: dict[str, np.ndarray], humans: ScoreMatrix | None = None
) -> DimensionScores:
    return DimensionScores(
        key="relevance",
        points=POINTS,
        level="ordinal",
        humans=humans if humans is not None else synthetic()[0],
        versions=versions,
        calibration=split_mask(),
    )


# Consensus and confusion ------------------------------------------------------------------


def test_the_consensus_is_the_median_rounded_half_up_and_the_spread_the_range() -> None:
    humans = np.array([[2, 3, np.nan], [1, 2, 4], [np.nan, np.nan, np.nan], [5, 5, 5]])
    # medians 2.5 -> 3, 2, none, 5
    np.testing.assert_array_equal(human_consensus(humans), [3, 2, np.nan, 5])
    np.testing.assert_array_equal(human_spread(humans), [1, 3, np.nan, 0])


def test_the_confusion_matrix_counts_cells_and_the_off_by_one_band() -> None:
    consensus = np.array([1, 2, 3, 3, np.nan])
    llm = np.array([1, 3, 3, 5, 2])
    confusion = ordinal_confusion(consensus, llm, POINTS)
    assert confusion.n_items == 4  # the item without a consensus is not counted
    assert confusion.counts[0][0] == 1 and confusion.counts[1][2] == 1
    assert confusion.counts[2][2] == 1 and confusion.counts[2][4] == 1
    assert confusion.exact == pytest.approx(2 / 4)
    assert confusion.within_one == pytest.approx(3 / 4)  # 3 against 5 is outside the band
    band = {(human, model): inside for human, model, _, inside in confusion.cells()}
    assert band[(2.0, 3.0)] and not band[(3.0, 5.0)]


def test_a_score_off_the_scale_is_refused() -> None:
    with pytest.raises(ValueError, match="not a point of the scale"):
        ordinal_confusion(np.array([1.0]), np.array([7.0]), POINTS)


# The split ---------------------------------------------------------------------------------


def test_the_split_is_seeded_stable_and_ignores_order() -> None:
    first = calibration_items(range(100), seed=3, calibration_share=0.4)
    assert len(first) == 40
    assert first == calibration_items(reversed(range(100)), seed=3, calibration_share=0.4)
    assert first != calibration_items(range(100), seed=4, calibration_share=0.4)
    with pytest.raises(ValueError):
        calibration_items(range(10), seed=1, calibration_share=1.0)


# Paired difference -------------------------------------------------------------------------


def test_the_paired_gain_is_before_minus_after_with_a_ci_over_items() -> None:
    means = np.full(30, 3.0)
    before = np.full(30, 4.0)  # every error 1
    after = np.r_[np.full(15, 3.0), np.full(15, 4.0)]  # half the errors gone
    difference = paired_mae_difference(means, before, after, resamples=RESAMPLES)
    assert difference.mae_before == 1.0 and difference.mae_after == 0.5
    assert difference.gain == pytest.approx(0.5)
    assert difference.interval.bounds is not None
    assert 0 < difference.interval.bounds[0] < 0.5 < difference.interval.bounds[1] < 1
    assert difference.shows_improvement


def test_no_gain_shows_no_improvement() -> None:
    means = np.arange(30, dtype=float) % 5 + 1
    scores = means[::-1].copy()
    difference = paired_mae_difference(means, scores, scores, resamples=RESAMPLES)
    assert difference.gain == 0
    assert not difference.shows_improvement


# Calibration -------------------------------------------------------------------------------


def test_calibration_on_the_calibration_split_removes_a_plus_one_bias_on_held_out_items() -> None:
    humans, truth = synthetic()
    biased = np.clip(truth + 1, 1, 5)
    (row,) = compare_versions(dimension({"biased": biased}), epsilon=0.15, resamples=RESAMPLES)
    assert row.calibration_map is not None and not row.calibration_map.collapsed
    held_out = ~split_mask()
    means = humans.human_scores[held_out].mean(axis=1)
    calibrated = row.calibration_map.apply(biased[held_out])
    bias_before = float((biased[held_out] - means).mean())
    bias_after = float((calibrated - means).mean())
    assert bias_before > 0.7
    assert abs(bias_after) < 0.3 * bias_before  # most of the bias is gone
    assert row.calibrated is not None and row.held_out.mae is not None
    assert row.calibrated.mae is not None and row.calibrated.mae < 0.6 * row.held_out.mae
    assert row.calibration_gain is not None and row.calibration_gain.shows_improvement


def test_the_fit_and_the_choice_never_read_held_out_human_scores() -> None:
    humans, truth = synthetic()
    versions = {"biased": np.clip(truth + 1, 1, 5), "exact": truth.copy()}
    poisoned_scores = humans.human_scores.copy()
    poisoned_scores[~split_mask()] = 1.0  # every held-out human score becomes 1
    poisoned = ScoreMatrix(humans.items, humans.humans, poisoned_scores, humans.llm_scores)
    clean = compare_versions(dimension(versions, humans), epsilon=0.15, resamples=RESAMPLES)
    dirty = compare_versions(dimension(versions, poisoned), epsilon=0.15, resamples=RESAMPLES)
    for one, other in zip(clean, dirty, strict=True):
        assert one.calibration_map == other.calibration_map
        assert one.calibration_mae == other.calibration_mae
    assert one.held_out.mae != other.held_out.mae  # the held-out figures did change
    assert best_version({"relevance": clean}, {"relevance": 4}) == best_version(
        {"relevance": dirty}, {"relevance": 4}
    )


def test_the_best_version_is_chosen_on_the_calibration_split_only() -> None:
    humans, truth = synthetic()
    calibration = split_mask()
    # Good where it is chosen, bad where it is measured.
    tuned = np.where(calibration, truth, np.clip(6 - truth, 1, 5))
    versions = {"steady": np.clip(truth + 1, 1, 5), "tuned": tuned}
    rows = compare_versions(dimension(versions, humans), epsilon=0.15, resamples=RESAMPLES)
    assert best_version({"relevance": rows}, {"relevance": 4}) == "tuned"
    tuned_row = rows[1]
    assert tuned_row.gain_over_first is not None and tuned_row.gain_over_first.gain is not None
    assert tuned_row.gain_over_first.gain < 0  # the held-out comparison shows it is worse


def test_a_random_llm_has_no_evidence_of_standing_in_and_its_collapsed_map_is_flagged() -> None:
    rng = np.random.default_rng(11)
    random_scores = rng.integers(1, 6, N_ITEMS).astype(float)
    with translation.override("en"):
        (row,) = compare_versions(
            dimension({"random": random_scores}), epsilon=0.15, resamples=RESAMPLES
        )
    assert row.calibration_map is not None and row.calibration_map.collapsed
    assert row.calibration_map.note is not None and "near-constant" in row.calibration_map.note
    # The constant guess does lower the MAE, which the verdict shows but does not count.
    assert row.calibrated is not None and row.calibrated.mae is not None
    assert row.held_out.mae is not None and row.calibrated.mae < row.held_out.mae
    with translation.override("en"):
        verdict = replacement_verdict("random", [row], epsilon=0.15, names={"relevance": "Rel"})
    assert not verdict.stands_in
    assert not verdict.dimensions[0].calibrated  # judged on its raw scores
    assert "no evidence that random can stand in for people" in verdict.sentences[0]
    assert any(
        "collapses to a near-constant" in s and "not taken as evidence" in s
        for s in verdict.sentences
    )


def test_a_good_llm_stands_in_and_a_gain_whose_ci_includes_zero_is_no_evidence() -> None:
    humans, truth = synthetic()
    (row,) = compare_versions(
        dimension({"good": truth.copy()}, humans), epsilon=0.15, resamples=RESAMPLES
    )
    with translation.override("en"):
        verdict = replacement_verdict("good", [row], epsilon=0.15, names={})
    assert verdict.stands_in
    assert "can stand in for people on every dimension" in verdict.sentences[0]
    gain = row.calibration_gain
    assert gain is not None and not gain.shows_improvement
    assert any("no evidence that calibration improves" in s for s in verdict.sentences)


def test_a_map_fitted_on_one_point_is_near_constant_and_needs_data() -> None:
    fitted = fit_calibration(np.array([3.0, 3.0]), np.array([2.0, 4.0]), POINTS)
    assert fitted.collapsed
    with pytest.raises(ValueError, match="no calibration item"):
        fit_calibration(np.array([np.nan]), np.array([2.0]), POINTS)


def test_why_a_map_cannot_be_fitted_reads_in_the_readers_language() -> None:
    for llm in (np.array([np.nan]), np.array([2.5])):
        with pytest.raises(ValueError) as raised:
            fit_calibration(llm, np.array([2.0]), POINTS)
        reason = reason_of(raised.value)
        with translation.override("zh-hans"):
            chinese = shown(reason)
        assert isinstance(reason, Phrase) and chinese != str(reason)
        assert not any(word in chinese for word in ("calibration", "scale"))


# The spread of calibrated scores -------------------------------------------------------------


def test_the_spread_sets_the_llms_sd_beside_every_persons_score_on_the_same_items() -> None:
    # The LLM scored items a and b only: people's scores there are 1, 3, 5, 3 (s.d. √2); the LLM's
    # 3 and 3 (s.d. 0). Item c, which the LLM left, does not count.
    matrix = ScoreMatrix(
        ("a", "b", "c"),
        ("x", "y"),
        np.array([[1.0, 3.0], [5.0, 3.0], [1.0, 5.0]]),
        np.array([3.0, 3.0, np.nan]),
    )
    spread = score_spread(matrix)
    assert spread is not None
    assert spread.people_sd == pytest.approx(np.sqrt(2))
    assert spread.llm_sd == 0 and spread.ratio == 0 and spread.shrunk
    wide = replace(matrix, llm_scores=np.array([1.0, 5.0, np.nan]))
    found = score_spread(wide)
    assert found is not None and found.ratio == pytest.approx(2 / np.sqrt(2))
    assert not found.shrunk


def sub_human(seed: int = 3) -> tuple[ScoreMatrix, np.ndarray]:
    """People with noise s.d. 0.8 around 3 + 1.1 z, and an evaluator correlating 0.6 with z."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(N_ITEMS)
    humans = np.clip(np.rint(3 + 1.1 * z[:, None] + rng.normal(0, 0.8, (N_ITEMS, 3))), 1, 5)
    latent = 0.6 * z + 0.8 * rng.standard_normal(N_ITEMS)
    items = tuple(f"t{n}" for n in range(N_ITEMS))
    matrix = ScoreMatrix(items, ("ann", "bo", "cy"), humans, np.full(N_ITEMS, np.nan))
    return matrix, np.clip(np.rint(3 + 1.1 * latent), 1, 5)


def test_a_verdict_on_calibrated_scores_says_when_calibration_shrinks_their_spread() -> None:
    humans, evaluator = sub_human()
    (row,) = compare_versions(
        dimension({"weak": evaluator}, humans), epsilon=0.15, resamples=RESAMPLES
    )
    assert row.calibrated is not None and row.calibrated.spread is not None
    spread = row.calibrated.spread
    # The map predicts the people's mean from a weak signal: its scores spread far less than a
    # person's, and less than the raw scores did.
    assert spread.shrunk and spread.ratio is not None and spread.ratio < SHRUNK_SPREAD_RATIO
    assert row.held_out.spread is not None and row.held_out.spread.llm_sd > spread.llm_sd
    with translation.override("en"):
        verdict = replacement_verdict("weak", [row], epsilon=0.15, names={"relevance": "Rel"})
    assert verdict.dimensions[0].calibrated
    expected = (
        f"Rel: calibration shrinks the spread of the scores: on the held-out items their s.d. "
        f"is {spread.llm_sd:.2f} against {spread.people_sd:.2f} for people's scores "
        f"({spread.ratio:.2f} times, below 0.8)."
    )
    assert any(sentence.startswith(expected) for sentence in verdict.sentences)
    with translation.override("zh-hans"):
        chinese = replacement_verdict("weak", [row], epsilon=0.15, names={"relevance": "Rel"})
    assert any("校准缩小了分数的离散程度" in sentence for sentence in chinese.sentences)


def test_no_spread_sentence_where_the_scores_keep_a_persons_spread() -> None:
    humans, truth = synthetic()
    (row,) = compare_versions(
        dimension({"good": truth.copy()}, humans), epsilon=0.15, resamples=RESAMPLES
    )
    assert row.calibrated is not None and row.calibrated.spread is not None
    assert not row.calibrated.spread.shrunk
    with translation.override("en"):
        verdict = replacement_verdict("good", [row], epsilon=0.15, names={})
    assert not any("shrinks the spread" in sentence for sentence in verdict.sentences)


def test_within_one_is_null_on_two_valued_data_and_both_rates_show_their_chance() -> None:
    # Yes/no coded 1 and 2 on the five-point scale: every pair is within one, whatever the LLM
    # answers, so the rate says nothing (a random LLM read 1.00), as in the agreement engine.
    generator = np.random.default_rng(3)
    consensus = generator.integers(1, 3, 60).astype(float)
    llm = generator.integers(1, 3, 60).astype(float)
    confusion = ordinal_confusion(consensus, llm, POINTS)
    assert confusion.within_one is None and confusion.within_one_note == TWO_VALUES
    assert confusion.within_one_chance_uniform is None
    assert confusion.exact == pytest.approx(float(np.mean(consensus == llm)))
    assert confusion.exact_chance_uniform == pytest.approx(1 / 5)
    p, q = np.mean(llm == 1), np.mean(consensus == 1)
    assert confusion.exact_chance_marginals == pytest.approx(p * q + (1 - p) * (1 - q))
    # On a two-point scale too.
    two = ordinal_confusion(consensus, llm, np.array([1.0, 2.0]))
    assert two.within_one is None and two.within_one_note is not None


def test_the_confusion_rates_show_their_chance_levels() -> None:
    consensus = np.array([1, 2, 3, 3, 5], dtype=float)
    llm = np.array([1, 3, 3, 5, 4], dtype=float)
    confusion = ordinal_confusion(consensus, llm, POINTS)
    assert confusion.within_one == pytest.approx(4 / 5) and confusion.within_one_note is None
    assert confusion.exact_chance_uniform == pytest.approx(1 / 5)
    assert confusion.within_one_chance_uniform == pytest.approx(13 / 25)  # (3K − 2)/K²
    # Each side's own shares: LLM 1, 3, 3, 5, 4; consensus 1, 2, 3, 3, 5.
    own = {1: 0.2, 3: 0.4, 4: 0.2, 5: 0.2}
    people = {1: 0.2, 2: 0.2, 3: 0.4, 5: 0.2}
    exact = sum(share * people.get(value, 0) for value, share in own.items())
    within = sum(
        share * people.get(other, 0)
        for value, share in own.items()
        for other in (value - 1, value, value + 1)
    )
    assert confusion.exact_chance_marginals == pytest.approx(exact)
    assert confusion.within_one_chance_marginals == pytest.approx(within)
