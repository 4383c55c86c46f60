"""The verdict: in plain words, whether the LLM evaluator agrees with people well enough to
stand in for one, by the one rule of `evalsite.agreement.verdict` (the alternative annotator
test, α LLM–humans above 0 and not significantly below α human–human, answers that vary)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from annotation.report.blocks import RatedBlock
from annotation.report.dimensions import POOLED
from evalsite.agreement.alt_test import DEFAULT_EPSILON, PASSING_WINNING_RATE
from evalsite.agreement.phrases import Phrase, shown


def evaluation_of(result: dict[str, Any], evaluator: str | None) -> dict[str, Any]:
    """The evaluation of ``evaluator``, or the first one when it is not in the report."""
    evaluations: list[dict[str, Any]] = result["evaluations"]
    for evaluation in evaluations:
        if evaluation["evaluator"] == evaluator:
            return evaluation
    return evaluations[0]


def _ci_text(ci: Sequence[float] | None) -> str:
    return "" if not ci else f" [{ci[0]:.2f}, {ci[1]:.2f}]"


def _first_note(block: RatedBlock | None) -> str:
    if block is None:
        return _("there are no scores to compare")
    if block.error:
        return block.error
    notes = block.notes
    return shown(notes[0]).rstrip(".。") if notes else _("the statistic has no value")


# How the engine's note on a missing alt-test begins; the verdict gives only its reason.
ALT_TEST_NULL = "alt_test is null: "
ALT_TEST_NULL_PHRASE = "alt_test is null: %(reason)s."


def _alt_test_note(block: RatedBlock | None) -> str:
    """Why the block has no alt-test, from its notes."""
    if block is not None:
        for note in block.notes:
            if isinstance(note, Phrase) and note.msgid == ALT_TEST_NULL_PHRASE:
                reason = note.params["reason"]
                return shown(reason if isinstance(reason, str) else str(reason)).rstrip(".。")
            if note.startswith(ALT_TEST_NULL):
                return note.removeprefix(ALT_TEST_NULL).rstrip(".")
    return _first_note(block)


def _alpha_sentence(block: RatedBlock) -> str:
    """α of the LLM with each human beside α between humans, the ceiling; empty when the
    former has no value."""
    alpha, alpha_ci = block.agreement.alpha, block.agreement.alpha_ci
    if alpha.llm_vs_humans is None:
        return ""
    if alpha.humans_pairwise is None:
        return _(" Its α with each human averages %(llm).2f%(llm_ci)s.") % {
            "llm": alpha.llm_vs_humans,
            "llm_ci": _ci_text(alpha_ci.llm_vs_humans),
        }
    return _(
        " Its α with each human averages %(llm).2f%(llm_ci)s, against %(humans).2f%(humans_ci)s "
        "between humans."
    ) % {
        "llm": alpha.llm_vs_humans,
        "llm_ci": _ci_text(alpha_ci.llm_vs_humans),
        "humans": alpha.humans_pairwise,
        "humans_ci": _ci_text(alpha_ci.humans_pairwise),
    }


def _llm_verdict(evaluator: str, scope: str, block: RatedBlock | None) -> str:
    """The alt-test's outcome, then α LLM–human beside α human–human."""
    alt = None if block is None else block.agreement.alt_test
    if alt is None:
        opening = _(
            "Whether the LLM evaluator %(evaluator)s can stand in for a human annotator cannot "
            "be tested %(scope)s: %(reason)s."
        ) % {"evaluator": evaluator, "scope": scope, "reason": _alt_test_note(block)}
    else:
        figures = {
            "evaluator": evaluator,
            "scope": scope,
            "epsilon": f"{alt.epsilon:g}",
            "beaten": sum(human.rejected for human in alt.humans),
            "tested": len(alt.humans),
            "rate": alt.winning_rate,
            "passing": f"{PASSING_WINNING_RATE:g}",
        }
        # Two whole sentences, not one with a word swapped, so that each translates whole.
        passed = _(
            "The LLM evaluator %(evaluator)s agrees with people well enough to stand in "
            "for a human annotator %(scope)s: in the alternative annotator test (ε = "
            "%(epsilon)s) it beat %(beaten)d of %(tested)d annotators, a winning rate of "
            "%(rate).2f ≥ %(passing)s."
        )
        failed = _(
            "The LLM evaluator %(evaluator)s does not agree with people well enough to "
            "stand in for a human annotator %(scope)s: in the alternative annotator test "
            "(ε = %(epsilon)s) it beat %(beaten)d of %(tested)d annotators, a winning rate "
            "of %(rate).2f < %(passing)s."
        )
        rule = None if block is None else block.agreement.verdict
        withheld = None if block is None else block.agreement.verdict_withheld
        evidence = _(
            " In the alternative annotator test (ε = %(epsilon)s) it beat %(beaten)d of "
            "%(tested)d annotators, a winning rate of %(rate).2f."
        )
        if withheld is not None:
            # Pooled dimensions that no dimension on its own supports give no verdict.
            opening = _(
                "Whether the LLM evaluator %(evaluator)s can stand in for a human annotator is "
                "not judged %(scope)s: %(reason)s."
            ) % {"evaluator": evaluator, "scope": scope, "reason": shown(withheld)}
            opening += evidence % figures
        elif alt.passed and rule is not None and not rule.stands_in:
            # The alt-test alone passed: the rule's other checks say why that is not enough.
            opening = shown(rule.sentence) + evidence % figures
        else:
            opening = (passed if alt.passed else failed) % figures
    return opening if block is None else opening + _alpha_sentence(block)


def verdict(result: dict[str, Any], evaluation: dict[str, Any]) -> str:
    """One or two sentences, in plain words, on whether the LLM evaluator agrees with people.

    Built from the alternative annotator test and from α of the LLM with each human beside α
    between humans; never from α with the LLM counted as one more rater, half of whose pairs
    are human–human.
    """
    subject = result["verdict_dimension"]
    evaluator = evaluation["evaluator"]
    if subject is None:
        return _("No rated dimension has scores yet, so there is no agreement to report.")
    if subject == POOLED:
        data = evaluation["pooled"]
        scope = _("over %(count)d dimensions pooled") % {"count": len(result["pooled_dimensions"])}
    else:
        data = evaluation["dimensions"].get(subject)
        scope = _("on %(dimension)s") % {"dimension": subject}
    block = RatedBlock.from_json(data) if data else None
    if evaluator is not None:
        return _llm_verdict(evaluator, scope, block)
    alpha = RatedBlock().agreement.alpha if block is None else block.agreement.alpha
    alpha_ci = RatedBlock().agreement.alpha_ci if block is None else block.agreement.alpha_ci
    people = (
        _("people agree among themselves at α = %(alpha).2f%(ci)s")
        % {"alpha": alpha.humans, "ci": _ci_text(alpha_ci.humans)}
        if alpha.humans is not None
        else _("agreement among people cannot be measured (%(reason)s)")
        % {"reason": _first_note(block)}
    )
    return _("No LLM evaluator has scored this campaign; %(people)s, %(scope)s.") % {
        "people": people,
        "scope": scope,
    }


def epsilon_note(result: dict[str, Any]) -> str:
    """Which ε the alt-test used, and why: the campaign's setting, and the guidance for it."""
    return _(
        "The alternative annotator test used ε = %(epsilon)s, this campaign's setting: the "
        "advantage a human annotator may keep over the LLM before the LLM is judged unable to "
        "stand in for one. Take 0.2 for expert annotators, 0.15 for skilled ones, 0.1 for crowd "
        "workers."
    ) % {"epsilon": f"{result.get('alt_test_epsilon', DEFAULT_EPSILON):g}"}
