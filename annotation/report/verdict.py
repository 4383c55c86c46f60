"""The verdict: one sentence, in plain words, on how far the LLM evaluator agrees with people."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from annotation.report.blocks import RatedBlock
from annotation.report.dimensions import POOLED


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
    return notes[0].rstrip(".") if notes else _("the statistic has no value")


def verdict(result: dict[str, Any], evaluation: dict[str, Any]) -> str:
    """One sentence, in plain words, on how far the LLM evaluator agrees with people."""
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
    alpha = RatedBlock().agreement.alpha if block is None else block.agreement.alpha
    alpha_ci = RatedBlock().agreement.alpha_ci if block is None else block.agreement.alpha_ci
    among = alpha.humans
    people = (
        _("people agree among themselves at α = %(alpha).2f%(ci)s")
        % {"alpha": among, "ci": _ci_text(alpha_ci.humans)}
        if among is not None
        else _("agreement among people cannot be measured (%(reason)s)")
        % {"reason": _first_note(block)}
    )
    if evaluator is None:
        return _("No LLM evaluator has scored this campaign; %(people)s, %(scope)s.") % {
            "people": people,
            "scope": scope,
        }
    together = alpha.humans_plus_llm
    if together is None:
        return _(
            "How far the LLM evaluator %(evaluator)s agrees with people cannot be measured "
            "yet, %(scope)s: %(reason)s."
        ) % {"evaluator": evaluator, "scope": scope, "reason": _first_note(block)}
    return _(
        "The LLM evaluator %(evaluator)s agrees with people at α = %(alpha).2f%(ci)s overall "
        "(counted as one more rater, %(scope)s); %(people)s."
    ) % {
        "evaluator": evaluator,
        "alpha": together,
        "ci": _ci_text(alpha_ci.humans_plus_llm),
        "scope": scope,
        "people": people,
    }
