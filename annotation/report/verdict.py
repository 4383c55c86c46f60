"""The verdict: in plain words, whether the LLM evaluator agrees with people well enough to
stand in for one, by the one rule of `evalsite.agreement.verdict` (the alternative annotator
test, α LLM–humans above 0 and not significantly below α human–human, answers that vary)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotation.report.blocks import PairwiseBlock, RatedBlock
from annotation.report.dimensions import POOLED
from annotation.report.names import dimension_names
from evalsite.agreement.alt_test import DEFAULT_EPSILON, PASSING_WINNING_RATE, AltTestResult
from evalsite.agreement.phrases import Listing, Phrase, shown
from evalsite.agreement.verdict import StandIn, on_every_dimension, withheld_over


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


def own_verdicts(evaluation: dict[str, Any]) -> list[tuple[str, StandIn]]:
    """(dimension, verdict) of every dimension judged on its own, rated then pairwise; not the
    pooled block, and none without an LLM."""
    found: list[tuple[str, StandIn]] = []
    for key, data in evaluation["dimensions"].items():
        rated = RatedBlock.from_json(data).agreement.verdict
        if rated is not None:
            found.append((key, rated))
    for key, data in evaluation.get("pairwise", {}).items():
        pairwise = PairwiseBlock.from_json(data).verdict
        if pairwise is not None:
            found.append((key, pairwise))
    return found


def campaign_verdict(evaluation: dict[str, Any]) -> StandIn | None:
    """The verdict over the whole campaign, as ``manage.py agreement`` gives it for a file: each
    check holds only where it holds on every dimension (`on_every_dimension`). None without an
    LLM, or when no dimension could be tested on its own (`withheld_over`)."""
    verdicts = [found for _, found in own_verdicts(evaluation)]
    whole = on_every_dimension(verdicts)
    if whole is None or withheld_over(verdicts) is not None:
        return None
    return whole


def failing_dimensions(result: dict[str, Any], evaluation: dict[str, Any]) -> list[str]:
    """The name of each dimension that fails the rule on its own."""
    names = dimension_names(result)
    return [names.get(key, key) for key, found in own_verdicts(evaluation) if not found.stands_in]


def failing_sentences(result: dict[str, Any], evaluation: dict[str, Any]) -> list[str]:
    """Each dimension that fails the rule on its own, with the rule's sentence: shown under the
    headline, so that a pooled pass cannot hide one."""
    names = dimension_names(result)
    return [
        _("%(dimension)s: %(reason)s")
        % {"dimension": names.get(key, key), "reason": shown(found.sentence)}
        for key, found in own_verdicts(evaluation)
        if not found.stands_in
    ]


def _listed(words: Sequence[str]) -> str:
    """Words (or the rule's clauses) joined as a list in the active language."""
    return shown(Phrase("%(words)s", words=Listing(words)))


def _stands_in(campaign: StandIn | None) -> bool:
    return campaign is not None and campaign.stands_in


def _passing(evaluator: str, scope: str, rule: StandIn, alt: AltTestResult) -> str:
    """The verdict when every check holds, naming each of the four and its figure."""
    return _(
        "The LLM evaluator %(evaluator)s agrees with people well enough to stand in for a human "
        "annotator %(scope)s: it passes all four checks of the rule. In the alternative annotator "
        "test (ε = %(epsilon)s) it beat %(beaten)d of %(tested)d annotators, a winning rate of "
        "%(rate).2f ≥ %(passing)s; its α with people is above 0 (lower bound %(low).2f); it is "
        "not significantly below α between people (the interval of the difference reaches "
        "%(high).2f); and its answers vary (%(distinct)d distinct answers)."
    ) % {
        "evaluator": evaluator,
        "scope": scope,
        "epsilon": f"{alt.epsilon:g}",
        "beaten": sum(human.rejected for human in alt.humans),
        "tested": len(alt.humans),
        "rate": alt.winning_rate,
        "passing": f"{PASSING_WINNING_RATE:g}",
        "low": rule.check("alpha_above_zero").value or 0.0,
        "high": rule.check("alpha_not_below_people").value or 0.0,
        "distinct": int(rule.check("answers_vary").value or 0),
    }


def _llm_verdict(
    evaluator: str,
    scope: str,
    block: RatedBlock | None,
    result: dict[str, Any],
    evaluation: dict[str, Any],
) -> str:
    """The rule's verdict in words, its alt-test's figures, then α LLM–human beside α
    human–human. It says "stands in" only when the campaign's verdict (`campaign_verdict`,
    every dimension's) does too."""
    alt = None if block is None else block.agreement.alt_test
    if alt is None:
        opening = _(
            "Whether the LLM evaluator %(evaluator)s can stand in for a human annotator cannot "
            "be tested %(scope)s: %(reason)s."
        ) % {"evaluator": evaluator, "scope": scope, "reason": _alt_test_note(block)}
        return opening if block is None else opening + _alpha_sentence(block)
    figures = {
        "evaluator": evaluator,
        "scope": scope,
        "epsilon": f"{alt.epsilon:g}",
        "beaten": sum(human.rejected for human in alt.humans),
        "tested": len(alt.humans),
        "rate": alt.winning_rate,
    }
    assert block is not None
    rule = block.agreement.verdict
    withheld = block.agreement.verdict_withheld
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
    elif rule is None or not rule.stands_in:
        # Every failed check is named, the alt-test's as much as the others.
        reasons = _("the rule's figures are missing") if rule is None else _listed(rule.reasons)
        opening = _(
            "The LLM evaluator %(evaluator)s cannot stand in for a human annotator %(scope)s: "
            "%(reasons)s."
        ) % {"evaluator": evaluator, "scope": scope, "reasons": reasons}
        opening += evidence % figures
    elif not _stands_in(campaign_verdict(evaluation)):
        # The block passes, but the campaign does not: a pooled pass must not hide a dimension
        # that fails on its own (each is listed under the headline).
        opening = _(
            "The LLM evaluator %(evaluator)s cannot stand in for a human annotator over this "
            "campaign: it passes the rule %(scope)s, but fails it on its own on %(dimensions)s "
            "(see below)."
        ) % {
            "evaluator": evaluator,
            "scope": scope,
            "dimensions": _listed(failing_dimensions(result, evaluation)),
        }
        opening += evidence % figures
    else:
        opening = _passing(evaluator, scope, rule, alt)
    return opening + _alpha_sentence(block)


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
        return _llm_verdict(
            evaluator,
            scope,
            block,
            result,
            evaluation,
        )
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
        "advantage a human annotator may keep over the LLM before the LLM fails the test, one "
        "of the four checks of the verdict. Take 0.2 for expert annotators, 0.15 for skilled "
        "ones, 0.1 for crowd workers."
    ) % {"epsilon": f"{result.get('alt_test_epsilon', DEFAULT_EPSILON):g}"}


def block_verdict(block: RatedBlock) -> tuple[bool | None, str]:
    """Whether one block's LLM stands in by its own rule, and the sentence that says why.

    None when it has no verdict: without an LLM (no sentence), when the engine could not analyse
    the scores, or when a pooled block's verdict is withheld (the sentence says why).
    """
    rule = block.agreement.verdict
    if rule is not None:
        return rule.stands_in, shown(rule.sentence)
    if block.error:
        return None, block.error
    withheld = block.agreement.verdict_withheld
    return None, "" if withheld is None else shown(withheld)


def stands_in_text(stands_in: bool | None) -> str:
    """yes, no, or a dash, as the summary table shows a block's verdict."""
    if stands_in is None:
        return "—"
    return pgettext("stands in", "yes") if stands_in else pgettext("stands in", "no")
