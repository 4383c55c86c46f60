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

from evalsite.agreement.alt_test import AltTestResult, alt_test
from evalsite.agreement.engine import agreement_blocks
from evalsite.agreement.phrases import shown
from evalsite.agreement.results import AgreementBlock
from evalsite.agreement.score_matrix import ScoreMatrix
from evalsite.agreement.verdict import CHECKS, Check, StandIn, on_every_dimension, withheld_over

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


# Pooled dimensions: no verdict that no dimension supports ----------------------------------


def test_a_pooled_verdict_is_withheld_when_no_dimension_can_be_tested() -> None:
    # The audit's case: 4 transcripts × 8 dimensions. Each dimension has 4 items, too few for
    # the alt-test, so whatever the 32 pooled units say, no verdict is given.
    frame = pooled_frame(4, seed=2)
    frame["dimension"] = frame["item"].str.split(":").str[0]
    own = agreement_blocks(frame, llm="llm", level="ordinal", resamples=0)
    assert len(own) == 8 and all(block.alt_test is None for block in own.values())
    verdicts = [block.verdict for block in own.values() if block.verdict is not None]
    passing = StandIn(tuple(Check(name, True, 1.0) for name in CHECKS))
    reason = withheld_over(verdicts, passing)
    assert reason == (
        "none of the 8 dimensions could be tested on its own by the alternative annotator test"
    )
    with translation.override("zh-hans"):
        assert shown(reason) == "8 个维度都不能单独接受替代标注者检验"


def verdict_with(stands_in: bool, tested: bool = True) -> StandIn:
    """A verdict whose checks all pass (or all fail); untested: no alt-test ran."""
    return StandIn(
        tuple(
            Check(name, stands_in, None if name == "alt_test" and not tested else 1.0)
            for name in CHECKS
        )
    )


def test_a_pooled_verdict_never_contradicts_every_tested_dimension() -> None:
    passes, fails = verdict_with(True), verdict_with(False)
    untested = verdict_with(False, tested=False)
    assert withheld_over([fails, fails, untested], passes) == (
        "the pooled dimensions pass the rule, but each of the 2 dimensions tested on its own "
        "fails it"
    )
    assert withheld_over([passes, untested], fails) == (
        "the pooled dimensions fail the rule, but each of the 1 dimensions tested on its own "
        "passes it"
    )
    # Agreeing with one tested dimension is enough; the whole-file verdict (no pooled one)
    # is withheld only when nothing was tested.
    assert withheld_over([fails, passes, untested], passes) is None
    assert withheld_over([fails, passes], fails) is None
    assert withheld_over([fails, untested]) is None
    assert withheld_over([untested, untested]) is not None


def test_the_whole_file_gives_no_verdict_when_no_dimension_can_be_tested(
    tmp_path: Path,
) -> None:
    frame = pooled_frame(4, seed=2)
    frame["dimension"] = frame["item"].str.split(":").str[0]
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    out = io.StringIO()
    call_command("agreement", str(path), "--llm", "llm", "--bootstrap", "50", stdout=out)
    report = json.loads(out.getvalue())
    assert report["verdict"] is None
    assert report["verdict_withheld"] == (
        "none of the 8 dimensions could be tested on its own by the alternative annotator test"
    )
    # Each dimension still has its own verdict, which names the missing alt-test.
    own = report["dimensions"]["d0"]["verdict"]
    assert own["stands_in"] is False
    assert "the alternative annotator test could not be run" in own["sentence"]


def test_the_whole_file_verdict_is_given_when_a_dimension_was_tested(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    campaign(3, "constant yes").to_csv(path, index=False)
    out = io.StringIO()
    call_command("agreement", str(path), "--llm", "llm", "--level", "nominal", stdout=out)
    report = json.loads(out.getvalue())
    assert report["verdict"]["stands_in"] is False and report["verdict_withheld"] is None


def clustered_campaign(
    generator: np.random.Generator, transcripts: int
) -> tuple[ScoreMatrix, list[int]]:
    """(dimension, transcript) units of 8 dimensions on a 1–5 scale, and each unit's transcript.

    Each unit's truth is its transcript's quality (s.d. 1) plus its own (s.d. ½); three people
    score it with noise of s.d. 0.6. The LLM's error is mostly its transcript's: a bias of s.d. 1
    shared by the transcript's 8 units, and noise of s.d. 0.1. On 20,000 transcripts a person's
    indicator exceeds the LLM's by 0.164 on average, above ε = 0.15: the LLM should fail.
    """
    quality = generator.normal(3, 1, transcripts)
    truth = quality[:, None] + generator.normal(0, 0.5, (transcripts, 8))
    people = truth[..., None] + generator.normal(0, 0.6, (transcripts, 8, 3))
    bias = generator.normal(0, 1, (transcripts, 1))
    llm = truth + bias + generator.normal(0, 0.1, (transcripts, 8))
    units = transcripts * 8
    scores = ScoreMatrix(
        tuple(f"u{n}" for n in range(units)),
        ("h0", "h1", "h2"),
        np.clip(np.round(people), 1, 5).reshape(units, 3),
        np.clip(np.round(llm), 1, 5).ravel(),
    )
    return scores, [unit // 8 for unit in range(units)]


@pytest.mark.monte_carlo
def test_an_llm_that_should_fail_rarely_passes_the_pooled_alt_test() -> None:
    """4, 8, 12 and 20 transcripts × 8 dimensions, 250 campaigns each (1,000 in all).

    Measured: the t-tests on transcript means pass 21 of 1,000 campaigns (2.1%, Monte Carlo
    s.e. 0.45%; 3, 9, 8 and 1 of 250 at 4, 8, 12 and 20 transcripts), within the test's level;
    the paper's item-by-item test, which takes the 8 units of a transcript for independent
    draws, passes 84 (8.4%, s.e. 0.9%; 25, 26, 21 and 12 of 250). The pooled verdict needs this
    alt-test to pass, so it passes no more often.
    """
    clustered = by_item = 0
    campaigns = 0
    for transcripts in (4, 8, 12, 20):
        generator = np.random.default_rng(transcripts)
        for _ in range(250):
            scores, labels = clustered_campaign(generator, transcripts)
            found = alt_test(scores, scoring="neg_rmse", clusters=labels)
            paper = alt_test(scores, scoring="neg_rmse")
            assert isinstance(found, AltTestResult) and isinstance(paper, AltTestResult)
            clustered += found.passed
            by_item += paper.passed
            campaigns += 1
    rate, unclustered = clustered / campaigns, by_item / campaigns
    assert rate <= 0.05, (
        f"{clustered} of {campaigns} passed (s.e. {np.sqrt(rate * (1 - rate) / campaigns):.3f})"
    )
    # The item-by-item test is fooled by the clustering: this test sees the difference.
    assert unclustered > 0.05 > rate, f"item by item {by_item} of {campaigns} passed"


def test_the_table_prints_each_verdict_and_the_whole_files(tmp_path: Path) -> None:
    # The constant "yes" passes the alt-test: the table must not leave "passed" as its word.
    good = campaign(5, "person").assign(dimension="clear")
    bad = campaign(3, "constant yes").assign(dimension="kind")
    path = tmp_path / "scores.csv"
    pd.concat([good, bad]).to_csv(path, index=False)
    out = io.StringIO()
    call_command(
        "agreement",
        str(path),
        "--llm",
        "llm",
        "--level",
        "nominal",
        "--format",
        "table",
        stdout=out,
    )
    text = out.getvalue()
    kind = text[text.index("dimension: kind") :]
    assert "alt-test (epsilon 0.15, accuracy): passed" in kind
    assert "  verdict: The LLM cannot stand in for people: " in kind
    assert "it gives the same answer to every item" in kind.split("\n  verdict: ")[1]
    clear = text[text.index("dimension: clear") : text.index("dimension: kind")]
    assert "  verdict: The LLM can stand in for people: " in clear
    whole = text.strip().splitlines()[-1]
    assert whole.startswith("whole file: The LLM cannot stand in for people: ")
    assert "it gives the same answer to every item" in whole
