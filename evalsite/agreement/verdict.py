"""The sentence that says whether an LLM evaluator agrees with people.

It is built from the alternative annotator test and from α of the LLM with each human set
beside α between humans; never from α with the LLM counted as one more rater.
"""

from __future__ import annotations

from evalsite.agreement.alt_test import PASSING_WINNING_RATE, AltTestResult, AltTestUnavailable
from evalsite.agreement.pairwise_alpha import LlmHumanAlpha


def agreement_verdict(alt: AltTestResult | AltTestUnavailable, alpha: LlmHumanAlpha) -> str:
    """One or two sentences saying whether the LLM can stand in for a human annotator.

    Built from the alt-test and from α between the LLM and the humans beside α between humans;
    never from α with the LLM counted as one more rater.
    """
    if isinstance(alt, AltTestUnavailable):
        opening = (
            f"There is no verdict on whether the LLM can replace a human annotator: {alt.note}."
        )
    else:
        beaten = sum(human.rejected for human in alt.humans)
        rule = "≥" if alt.passed else "<"
        opening = (
            f"The LLM {'can' if alt.passed else 'cannot'} replace a human annotator: in the "
            f"alternative annotator test (ε = {alt.epsilon:g}) it beat {beaten} of "
            f"{len(alt.humans)} annotators, a winning rate of {alt.winning_rate:.2f} "
            f"{rule} {PASSING_WINNING_RATE:g}."
        )
    llm, humans = alpha.llm_vs_humans.value, alpha.humans_pairwise.value
    if llm is None:
        return opening
    ceiling = "" if humans is None else f", against {humans:.2f} between humans"
    return f"{opening} Its α with each human averages {llm:.2f}{ceiling}."
