"""The one rule for "can stand in for people", on the audit's cases and in seeded simulations.

Each simulated campaign: 80 yes/no items whose true answer is "yes" 85% of the time, three
people who each flip 10% of the answers, and an LLM. With n campaigns, the Monte Carlo
standard error of a rate p is sqrt(p(1 − p)/n); for a rate of 0 out of n, the 95% upper
bound is 3/n (the rule of three).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.management import call_command
from django.utils import translation

from evalsite.agreement.engine import agreement_blocks
from evalsite.agreement.phrases import shown
from evalsite.agreement.results import AgreementBlock
from evalsite.agreement.verdict import CHECKS, on_every_dimension

ITEMS = 80
CAMPAIGNS = 100


def campaign(seed: int, llm_kind: str) -> pd.DataFrame:
    generator = np.random.default_rng(seed)
    truth = generator.random(ITEMS) < 0.85
    rows: list[tuple[str, str, float]] = []
    votes = np.zeros(ITEMS, dtype=int)
    for person in range(3):
        flipped = generator.random(ITEMS) < 0.1
        answers = np.where(flipped, ~truth, truth)
        votes += answers
        rows += [(f"i{i}", f"h{person}", float(a)) for i, a in enumerate(answers)]
    if llm_kind == "constant yes":
        llm = np.ones(ITEMS, dtype=bool)
    elif llm_kind == "random":
        llm = generator.random(ITEMS) < 0.5
    elif llm_kind == "majority":  # each item's answer of most of these three people
        llm = votes >= 2
    else:  # "person": one more person of the same kind; "person 0.2": one who flips 20%
        _, _, flips = llm_kind.partition(" ")
        llm = np.where(generator.random(ITEMS) < float(flips or 0.1), ~truth, truth)
    rows += [(f"i{i}", "llm", float(a)) for i, a in enumerate(llm)]
    return pd.DataFrame(rows, columns=["item", "rater", "score"])


def block_of(seed: int, llm_kind: str, resamples: int = 200) -> AgreementBlock:
    frame = campaign(seed, llm_kind)
    blocks = agreement_blocks(frame, llm="llm", level="nominal", resamples=resamples, seed=seed)
    return blocks["all"]


def test_a_constant_yes_passes_the_alt_test_but_never_stands_in() -> None:
    block = block_of(3, "constant yes")
    assert block.alt_test is not None and block.alt_test.passed
    verdict = block.verdict
    assert verdict is not None and not verdict.stands_in
    failed = {check.name for check in verdict.checks if not check.passed}
    assert failed == {"alpha_above_zero", "alpha_not_below_people", "answers_vary"}
    assert verdict.check("answers_vary").value == 1.0
    assert str(verdict.sentence).startswith("The LLM cannot stand in for people: its α with")
    assert "it gives the same answer to every item" in str(verdict.sentence)


def test_the_verdict_reads_in_chinese() -> None:
    verdict = block_of(3, "constant yes").verdict
    assert verdict is not None
    with translation.override("zh-hans"):
        text = shown(verdict.sentence)
    assert text.startswith("该大模型不能代替人工：")
    assert "对每个条目都给出同一个答案" in text


def test_an_llm_like_one_more_person_stands_in() -> None:
    verdict = block_of(5, "person").verdict
    assert verdict is not None and verdict.stands_in
    assert [check.name for check in verdict.checks] == list(CHECKS)
    assert str(verdict.sentence).startswith("The LLM can stand in for people")


def test_a_block_without_intervals_gives_no_pass() -> None:
    verdict = block_of(5, "person", resamples=0).verdict
    assert verdict is not None and not verdict.stands_in
    assert verdict.check("alpha_above_zero").value is None
    assert "its α with people has no confidence interval" in str(verdict.sentence)


def test_the_verdict_survives_the_reports_json() -> None:
    block = block_of(3, "constant yes")
    again = AgreementBlock.from_json(json.loads(json.dumps(block.as_json())))
    assert again.verdict == block.verdict


@pytest.mark.monte_carlo
@pytest.mark.parametrize(
    ("llm_kind", "alt_passes_at_least", "stands_in_between"),
    [
        # The audit's case: accuracy scoring rewards the majority class. Measured: the alt-test
        # passes in 66 of 100 campaigns (MC s.e. 0.047); the rule lets none through (95% upper
        # bound 0.03).
        ("constant yes", 0.5, (0.0, 0.0)),
        # Measured: 0 of 100 pass the alt-test, 0 stand in.
        ("random", 0.0, (0.0, 0.0)),
        # An LLM that is one more person: measured 90 of 100 (MC s.e. 0.03).
        ("person", 0.8, (0.8, 1.0)),
        # The majority-copier answers each item as most of these people did: not constant, and
        # closer to each person than another person is, because that person's own vote is part
        # of the majority (α LLM–humans 0.71 against 0.47 between people, on average). The rule
        # judges agreement, not where the answers came from, so it stands in: measured 100 of
        # 100 (95% lower bound 0.97). An evaluator that has read the labels is caught only by
        # judging it on items it has not read, as judge alignment's held-out split does.
        ("majority", 0.95, (0.95, 1.0)),
        # Near the line. Flipping half as often as people (5%): stands in 100 of 100. The line is
        # not at equal noise but where the alt-test's allowance ε = 0.15 puts it: an LLM that
        # flips 15% (people 10%) stands in 57 of 100 (s.e. 0.05), half as often as one who
        # flips 10% and twice as often as one who flips 20% (28); at 25% it stands in 4 of 100
        # (s.e. 0.02), failing the alt-test in 96.
        ("person 0.05", 0.95, (0.95, 1.0)),
        ("person 0.15", 0.3, (0.4, 0.75)),
        ("person 0.2", 0.1, (0.15, 0.45)),
        ("person 0.25", 0.0, (0.0, 0.1)),
    ],
)
def test_simulated_campaigns(
    llm_kind: str, alt_passes_at_least: float, stands_in_between: tuple[float, float]
) -> None:
    blocks = [block_of(seed, llm_kind) for seed in range(CAMPAIGNS)]
    alt_rate = np.mean([b.alt_test is not None and b.alt_test.passed for b in blocks])
    stands_rate = np.mean([b.verdict is not None and b.verdict.stands_in for b in blocks])
    assert alt_rate >= alt_passes_at_least
    low, high = stands_in_between
    assert low <= stands_rate <= high, f"stands in {stands_rate:.2f}, MC s.e. " + (
        f"{np.sqrt(stands_rate * (1 - stands_rate) / CAMPAIGNS):.3f}"
    )
    if llm_kind == "majority":
        # Why it stands in: its α with people exceeds theirs with each other in every campaign.
        above = [
            b.alpha.llm_vs_humans is not None
            and b.alpha.humans_pairwise is not None
            and b.alpha.llm_vs_humans > b.alpha.humans_pairwise
            for b in blocks
        ]
        assert np.mean(above) >= 0.95


def test_the_whole_file_verdict_holds_only_where_every_dimension_does(tmp_path: Path) -> None:
    good = campaign(5, "person").assign(dimension="clear")
    bad = campaign(3, "constant yes").assign(dimension="kind")
    path = tmp_path / "scores.csv"
    pd.concat([good, bad]).to_csv(path, index=False)
    out = io.StringIO()
    call_command("agreement", str(path), "--llm", "llm", "--level", "nominal", stdout=out)
    report = json.loads(out.getvalue())
    assert report["dimensions"]["clear"]["verdict"]["stands_in"] is True
    assert report["dimensions"]["kind"]["verdict"]["stands_in"] is False
    whole = report["verdict"]
    assert whole["stands_in"] is False
    assert [check["name"] for check in whole["checks"]] == list(CHECKS)
    answers = next(check for check in whole["checks"] if check["name"] == "answers_vary")
    assert answers == {"name": "answers_vary", "passed": False, "value": 1.0}
    blocks = [AgreementBlock.from_json(report["dimensions"][d]) for d in ("clear", "kind")]
    combined = on_every_dimension([b.verdict for b in blocks if b.verdict is not None])
    assert combined is not None and combined.as_json() == whole


def test_within_one_is_null_on_yes_no_data_read_without_a_scale() -> None:
    # The audit's case: 0/1 data at the default (ordinal) level without --scale gave a random
    # LLM within_one = 1.000 [1.000, 1.000].
    frame = campaign(4, "random")
    block = agreement_blocks(frame, llm="llm", level="ordinal", resamples=100, seed=4)["all"]
    assert block.within_one is None and block.within_one_ci is None
    assert any("the scores take at most two values" in str(note) for note in block.notes)
    assert block.exact_agreement is not None
    # What a random LLM's exact agreement is to be read against: about 0.5 on a two-point scale
    # and from the observed shares (people "yes" 80% of the time, the LLM half).
    assert block.chance.scale_points == 2 and block.chance.exact_uniform == 0.5
    assert block.chance.exact_marginals == pytest.approx(0.5, abs=0.1)
    assert block.chance.within_one_uniform is None


def test_within_one_is_null_on_any_two_values_whatever_the_level() -> None:
    # Yes/no coded 1 and 5: every unequal pair is 4 steps apart, so within one = exact agreement.
    frame = campaign(4, "random").assign(score=lambda f: 1 + 4 * f["score"])
    for level in ("ordinal", "interval", "ratio"):
        for scale in (None, (1.0, 5.0)):
            block = agreement_blocks(frame, llm="llm", level=level, scale=scale, resamples=0)
            assert block["all"].within_one is None, (level, scale)


def pooled_frame(transcripts: int, seed: int) -> pd.DataFrame:
    """(dimension, transcript) units of 8 dimensions, 1–5 scores, the LLM copying person h0."""
    generator = np.random.default_rng(seed)
    rows: list[tuple[str, str, float, str]] = []
    for t in range(transcripts):
        quality = generator.integers(1, 6)
        for d in range(8):
            unit = f"d{d}:t{t}"
            scores = np.clip(quality + generator.integers(-1, 2, 3), 1, 5)
            rows += [(unit, f"h{p}", float(s), f"t{t}") for p, s in enumerate(scores)]
            rows.append((unit, "llm", float(scores[0]), f"t{t}"))
    return pd.DataFrame(rows, columns=["item", "rater", "score", "transcript"])


def test_clustered_units_give_no_pass_from_too_few_transcripts() -> None:
    # The audit's case: 4 transcripts × 8 dimensions are 32 units but only 4 independent
    # clusters. Resampling whole transcripts, the interval is withheld, so no pass.
    block = agreement_blocks(
        pooled_frame(4, seed=2), llm="llm", level="ordinal", resamples=200, cluster="transcript"
    )["all"]
    assert block.n_items == 32
    verdict = block.verdict
    assert verdict is not None and not verdict.stands_in
    assert verdict.check("alpha_above_zero").value is None
    assert verdict.check("alpha_not_below_people").value is None


def test_enough_clusters_give_the_rule_its_intervals() -> None:
    block = agreement_blocks(
        pooled_frame(30, seed=2), llm="llm", level="ordinal", resamples=200, cluster="transcript"
    )["all"]
    verdict = block.verdict
    assert verdict is not None
    assert block.alpha_gap_ci is not None
    assert verdict.check("alpha_above_zero").value is not None
    assert verdict.check("alpha_above_zero").passed
