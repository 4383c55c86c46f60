"""The engine's verdict evidence, scale-aware rates and intervals over the right unit."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import pytest

from evalsite.agreement.clusters import cluster_distributions, cluster_estimates, cluster_interval
from evalsite.agreement.engine import agreement_blocks, human_llm_agreement
from evalsite.agreement.rates import RatioOfSums
from evalsite.agreement.results import AgreementBlock


def frame_of(scores: Mapping[str, Mapping[str, float]], **columns: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"item": item, "rater": rater, "score": score}
            | {name: values[item] for name, values in columns.items()}
            for item, by_rater in scores.items()
            for rater, score in by_rater.items()
        ]
    )


def agreeing_humans_and_a_random_llm(items: int = 60, seed: int = 1) -> pd.DataFrame:
    """Three humans who mostly give an item its true score (1–5); the LLM scores at random."""
    generator = np.random.default_rng(seed)
    scores = {}
    for number in range(items):
        truth = int(generator.integers(1, 6))
        scores[f"i{number}"] = {
            **{
                human: float(
                    np.clip(truth + generator.choice([-1, 0, 1], p=[0.15, 0.7, 0.15]), 1, 5)
                )
                for human in ("h1", "h2", "h3")
            },
            "llm": float(generator.integers(1, 6)),
        }
    return frame_of(scores)


def test_a_random_llm_fails_the_alt_test_and_gets_an_alpha_near_zero() -> None:
    block = human_llm_agreement(agreeing_humans_and_a_random_llm(), llm="llm", scale=(1, 5))[
        "dimensions"
    ]["all"]
    alt = block["alt_test"]
    assert alt["passed"] is False
    assert alt["winning_rate"] == 0.0
    assert alt["epsilon"] == 0.15
    assert alt["scoring"] == "neg_rmse"
    assert [human["rater"] for human in alt["humans"]] == ["h1", "h2", "h3"]
    assert all(human["n_items"] == 60 and not human["rejected"] for human in alt["humans"])
    assert abs(block["alpha"]["llm_vs_humans"]) < 0.15
    assert 0.7 < block["alpha"]["humans_pairwise"] < 0.9
    # With the LLM as one more rater, half the pairs are human–human: a misleading 0.3 or so.
    assert block["alpha"]["humans_plus_llm"] > block["alpha"]["llm_vs_humans"] + 0.2
    low, high = block["alpha_ci"]["llm_vs_humans"]
    assert low < block["alpha"]["llm_vs_humans"] < high < 0.3


def test_a_copying_llm_passes_the_alt_test_at_the_allowance_given() -> None:
    frame = agreeing_humans_and_a_random_llm()
    copied = frame[frame["rater"] == "h1"].assign(rater="llm")
    frame = pd.concat([frame[frame["rater"] != "llm"], copied])
    blocks = agreement_blocks(frame, llm="llm", resamples=0, epsilon=0.2, alt_scoring="accuracy")
    alt = blocks["all"].alt_test
    assert alt is not None
    assert (alt.passed, alt.epsilon, alt.scoring) == (True, 0.2, "accuracy")
    assert alt.winning_rate == 1.0
    assert AgreementBlock.from_json(blocks["all"].as_json()).alt_test == alt


def test_it_explains_an_alt_test_that_cannot_run() -> None:
    block = human_llm_agreement(agreeing_humans_and_a_random_llm(items=12), llm="llm")[
        "dimensions"
    ]["all"]
    assert block["alt_test"] is None
    assert (
        "alt_test is null: no human annotator has 30 items that the LLM and another human also "
        "scored (the most is 12, by h1)." in block["notes"]
    )


def test_it_withholds_alpha_intervals_below_twenty_items() -> None:
    block = human_llm_agreement(agreeing_humans_and_a_random_llm(items=12), llm="llm")[
        "dimensions"
    ]["all"]
    assert block["alpha"]["humans"] is not None
    assert set(block["alpha_ci"].values()) == {None}
    # Rates still get an interval from 10 items on.
    assert block["mae_ci"] is not None
    assert any(
        "alpha_ci.humans" in note
        and "are null: too few items for an interval (12 usable; at least 20 are needed)" in note
        for note in block["notes"]
    )


def test_it_averages_exact_agreement_per_item_beside_the_pooled_rate() -> None:
    scores = {
        "a": {"h1": 3, "h2": 3, "h3": 1, "llm": 3},  # 2 of 3 pairs agree
        "b": {"h1": 2, "llm": 2},  # 1 of 1
        "c": {"h1": 2, "h2": 3, "llm": 1},  # 0 of 2
    }
    block = human_llm_agreement(frame_of(scores), llm="llm", resamples=0)["dimensions"]["all"]
    assert block["exact_agreement"] == pytest.approx((2 + 1 + 0) / (3 + 1 + 2))
    assert block["exact_agreement_per_item"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    # Pairs within one point: a 2 of 3, b 1, c 1 of 2.
    assert block["within_one"] == pytest.approx(4 / 6)


def test_within_one_is_null_on_a_two_point_scale() -> None:
    scores = {"a": {"h1": 0, "llm": 1}, "b": {"h1": 1, "llm": 0}, "c": {"h1": 0, "llm": 1}}
    ordinal = human_llm_agreement(frame_of(scores), llm="llm", scale=(0, 1), resamples=0)
    block = ordinal["dimensions"]["all"]
    assert block["within_one"] is None
    assert block["exact_agreement"] == 0.0
    assert (
        "within_one and within_one_ci are null: the scale 0:1 has two points, on which every "
        "pair is within one step." in block["notes"]
    )
    nominal = human_llm_agreement(frame_of(scores), llm="llm", level="nominal", resamples=0)
    assert nominal["dimensions"]["all"]["within_one"] is None
    assert any(
        "nominal categories have no order" in n for n in nominal["dimensions"]["all"]["notes"]
    )


def test_a_pooled_blocks_chance_is_worked_out_within_each_group() -> None:
    # Group A: the LLM says 1 twice against 1, 2: chance 1 · 1/2. Group B: the LLM says 4 once
    # and 5 three times against 4, 4, 4, 5: 1/4 · 3/4 + 3/4 · 1/4 = 3/8. Weighted by pairs,
    # (2 · 1/2 + 4 · 3/8) / 6. Across groups, 1 and 4 are never compared.
    scores = {
        "a1": {"h": 1, "llm": 1},
        "a2": {"h": 2, "llm": 1},
        "b1": {"h": 4, "llm": 4},
        "b2": {"h": 4, "llm": 5},
        "b3": {"h": 4, "llm": 5},
        "b4": {"h": 5, "llm": 5},
    }
    kind = {item: item[0] for item in scores}
    pooled = agreement_blocks(
        frame_of(scores, kind=kind), llm="llm", scale=(1, 5), within="kind", resamples=0
    )["all"]
    assert pooled.chance.exact_marginals == pytest.approx((2 * 0.5 + 4 * 3 / 8) / 6)
    assert pooled.chance.exact_uniform == pytest.approx(1 / 5)
    # Each group holds two values, so within one says nothing, though four values are pooled.
    assert pooled.within_one is None and pooled.chance.within_one_marginals is None
    plain = agreement_blocks(frame_of(scores), llm="llm", scale=(1, 5), resamples=0)["all"]
    # Pooled shares: the LLM 1 2/6, 4 1/6, 5 3/6; people 1 1/6, 2 1/6, 4 3/6, 5 1/6.
    assert plain.chance.exact_marginals == pytest.approx((2 + 3 + 3) / 36)
    assert plain.within_one is not None


def test_within_one_counts_in_the_scales_step() -> None:
    # Scores in quarters on 0:1: one step is 0.25, so 0.5 against 0.75 is within one, 0 against
    # 0.5 is not.
    scores = {
        "a": {"h1": 0.5, "llm": 0.75},
        "b": {"h1": 0.0, "llm": 0.5},
        "c": {"h1": 1.0, "llm": 1.0},
    }
    block = human_llm_agreement(frame_of(scores), llm="llm", scale=(0, 1), resamples=0)
    assert block["dimensions"]["all"]["within_one"] == pytest.approx(2 / 3)


def centred_dimensions(seed: int = 3) -> pd.DataFrame:
    """Three criteria with means 1, 5 and 9; within each, the LLM is unrelated to the humans."""
    generator = np.random.default_rng(seed)
    scores, criterion = {}, {}
    for mean, name in ((1.0, "fluency"), (5.0, "relevance"), (9.0, "empathy")):
        for number in range(40):
            item = f"{name}-{number}"
            criterion[item] = name
            scores[item] = {
                "h1": mean + generator.normal(0, 1),
                "h2": mean + generator.normal(0, 1),
                "llm": mean + generator.normal(0, 1),
            }
    return frame_of(scores, criterion=criterion)


def test_centring_within_criteria_keeps_their_means_from_inflating_pooled_agreement() -> None:
    frame = centred_dimensions()
    raw = human_llm_agreement(frame, llm="llm", level="interval", resamples=0)
    centred = human_llm_agreement(
        frame, llm="llm", level="interval", resamples=0, within="criterion"
    )
    raw_block, centred_block = raw["dimensions"]["all"], centred["dimensions"]["all"]
    assert raw_block["pearson"]["r"] > 0.8
    assert abs(centred_block["pearson"]["r"]) < 0.2
    assert raw_block["alpha"]["llm_vs_humans"] > 0.8
    assert abs(centred_block["alpha"]["llm_vs_humans"]) < 0.2
    # A shift shared by every rater of an item leaves their differences alone.
    assert centred_block["mae"] == pytest.approx(raw_block["mae"])
    assert any(
        note.startswith("Scores were centred within each value of 'criterion'")
        for note in centred_block["notes"]
    )


def halo_frame(generator: np.random.Generator, transcripts: int, dimensions: int) -> pd.DataFrame:
    """Two humans give each (dimension, transcript) unit its score; the LLM adds an error.

    The error is a transcript's halo (−1, 0, +1 with chances ¼, ½, ¼), shared by all its
    dimensions, plus a unit's own slip (−1, 0, +1 with chances 0.05, 0.9, 0.05). The LLM agrees
    exactly when the two cancel: ½ · 0.9 + 2 · ¼ · 0.05 = 0.475.
    """
    halo = generator.choice([-1, 0, 1], p=[0.25, 0.5, 0.25], size=transcripts)
    rows = []
    for transcript in range(transcripts):
        for dimension in range(dimensions):
            item = f"t{transcript}-d{dimension}"
            truth = float(generator.integers(1, 6))
            slip = generator.choice([-1, 0, 1], p=[0.05, 0.9, 0.05])
            for rater, score in (
                ("h1", truth),
                ("h2", truth),
                ("llm", truth + halo[transcript] + slip),
            ):
                rows.append(
                    {"item": item, "rater": rater, "score": score, "transcript": f"t{transcript}"}
                )
    return pd.DataFrame(rows)


def test_the_cluster_interval_covers_the_truth_under_a_transcript_halo() -> None:
    truth = 0.5 * 0.9 + 2 * 0.25 * 0.05
    generator = np.random.default_rng(2026)
    datasets = 60
    cluster_hits = unit_hits = 0
    for dataset in range(datasets):
        frame = halo_frame(generator, transcripts=30, dimensions=5)
        for cluster in ("transcript", None):
            block = agreement_blocks(
                frame, llm="llm", level="interval", resamples=300, seed=dataset, cluster=cluster
            )["all"]
            assert block.exact_agreement_ci is not None
            low, high = block.exact_agreement_ci
            if cluster is None:
                unit_hits += low <= truth <= high
            else:
                cluster_hits += low <= truth <= high
    assert cluster_hits / datasets >= 0.90
    # Resampling the 150 units as if independent covers far less often.
    assert unit_hits / datasets < 0.80


def test_a_clustered_blocks_interval_is_the_widened_bca_interval_over_transcripts() -> None:
    frame = halo_frame(np.random.default_rng(7), transcripts=30, dimensions=5)
    block = agreement_blocks(
        frame, llm="llm", level="interval", resamples=300, seed=1, cluster="transcript"
    )["all"]
    # Exact agreement by hand: per item (in the engine's sorted order), how many of the two
    # humans the LLM matches, over 2 pairs; each item's transcript is its cluster.
    wide = frame.pivot(index="item", columns="rater", values="score")
    exact = (wide[["h1", "h2"]].to_numpy() == wide[["llm"]].to_numpy()).sum(axis=1)
    clusters = [item.split("-")[0] for item in wide.index]
    statistic = {"exact": RatioOfSums(exact, np.full(len(exact), 2.0))}
    distribution = cluster_distributions(statistic, clusters, resamples=300, seed=1)["exact"]
    estimate, jackknife = cluster_estimates(statistic, clusters)["exact"]
    assert estimate == pytest.approx(block.exact_agreement)
    expected = cluster_interval(distribution, estimate, jackknife, n_clusters=30)
    assert block.exact_agreement_ci == pytest.approx(expected)
    assert block.exact_agreement_ci != pytest.approx(
        tuple(np.quantile(distribution, [0.025, 0.975]))
    )


def test_it_reads_text_labels_as_categories_with_only_empty_cells_missing() -> None:
    frame = pd.DataFrame(
        {
            "item": ["a", "a", "a", "b", "b", "b", "c", "c"],
            "rater": ["h1", "h2", "llm", "h1", "h2", "llm", "h1", "llm"],
            "score": ["Positive", "Positive", "Negative", "unknown", None, "unknown", "", "x"],
        }
    )
    blocks = agreement_blocks(frame, llm="llm", level="nominal", resamples=0)
    block = blocks["all"]
    # c's human cell is empty, so c has only the LLM's label and b one human's.
    assert block.n_items == 3
    assert block.exact_agreement == pytest.approx(1 / 3)
    assert block.alpha.humans is None
    assert block.spearman.value is None
    assert block.mae is None


def test_numeric_labels_at_the_nominal_level_stay_numbers() -> None:
    frame = frame_of({"a": {"h1": 1, "h2": 1, "llm": 1}, "b": {"h1": 2, "h2": 1, "llm": 2}})
    block = agreement_blocks(frame, llm="llm", level="nominal", resamples=0)["all"]
    assert block.mae == pytest.approx(0.25)
