"""The one rule that says whether an LLM can stand in for people, and the sentence that says so.

The alternative annotator test alone cannot carry the verdict: with accuracy scoring it rewards
the majority class, so an LLM that always answers "yes" passes on a question people answer
"yes" 85% of the time, while its α with people is below 0. An LLM stands in for people only
when **all** of these hold (`CHECKS`, in this order):

1. ``alt_test``: the alternative annotator test passes (winning rate ≥ 0.5);
2. ``alpha_above_zero``: the lower bound of the CI of α LLM–humans (α of the LLM with each
   human, averaged) is above 0, so its agreement with people is more than chance;
3. ``alpha_not_below_people``: the CI of α LLM–humans − α between humans, from the same
   bootstrap resamples, reaches 0 or above, so the LLM does not agree with people
   significantly less than they agree with each other;
4. ``answers_vary``: the LLM does not give one answer to every item.

A check that cannot be made (no alt-test, no interval) fails: the verdict needs evidence.
`StandIn.sentence` names every failed condition, as a translatable `Phrase`.

A verdict over several dimensions (pooled into one block, or the whole file) is withheld when
no dimension could be tested on its own, and a pooled verdict also when it would contradict
every dimension that could (`withheld_over`): pooling must not declare what no dimension shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalsite.agreement.alt_test import PASSING_WINNING_RATE, AltTestResult
from evalsite.agreement.common import Interval
from evalsite.agreement.phrases import Listing, Phrase, gettext_noop

CHECKS = ("alt_test", "alpha_above_zero", "alpha_not_below_people", "answers_vary")


@dataclass(frozen=True)
class Check:
    """One condition of the rule: whether it holds, and the figure it was judged on.

    ``value`` is the alt-test's winning rate, the lower bound of α LLM–humans, the upper bound
    of the difference from α between humans, or the number of distinct LLM answers; None when
    the figure could not be computed (and the check then fails).
    """

    name: str
    passed: bool
    value: float | None

    def as_json(self) -> dict[str, object]:
        return {"name": self.name, "passed": self.passed, "value": self.value}


@dataclass(frozen=True)
class StandIn:
    """The verdict: every check of the rule, and whether all of them hold."""

    checks: tuple[Check, ...]

    @property
    def stands_in(self) -> bool:
        return all(check.passed for check in self.checks)

    def check(self, name: str) -> Check:
        return next(check for check in self.checks if check.name == name)

    @property
    def sentence(self) -> Phrase:
        """The verdict in words: what it rests on when it passes, each failure when not."""
        if self.stands_in:
            return Phrase(
                gettext_noop(
                    "The LLM can stand in for people: it passes the alternative annotator test "
                    "(winning rate %(rate).2f), its α with people is above 0 (lower bound "
                    "%(low).2f) and not significantly below α between people, and its answers "
                    "vary."
                ),
                rate=self.check("alt_test").value or 0.0,
                low=self.check("alpha_above_zero").value or 0.0,
            )
        return Phrase(
            gettext_noop("The LLM cannot stand in for people: %(reasons)s."), reasons=self.reasons
        )

    @property
    def reasons(self) -> Listing:
        """Each failed check as a clause ("it fails the alternative annotator test ...")."""
        return Listing(_failure(check) for check in self.checks if not check.passed)

    def as_json(self) -> dict[str, object]:
        return {
            "stands_in": self.stands_in,
            "checks": [check.as_json() for check in self.checks],
            "sentence": str(self.sentence),
        }


def _failure(check: Check) -> Phrase:
    """Why one check failed, as a clause of the verdict's sentence."""
    value = check.value
    if check.name == "alt_test":
        if value is None:
            return Phrase(gettext_noop("the alternative annotator test could not be run"))
        return Phrase(
            gettext_noop(
                "it fails the alternative annotator test (winning rate %(rate).2f < %(passing)s)"
            ),
            rate=value,
            passing=f"{PASSING_WINNING_RATE:g}",
        )
    if check.name == "alpha_above_zero":
        if value is None:
            return Phrase(gettext_noop("its α with people has no confidence interval"))
        return Phrase(
            gettext_noop(
                "its α with people is not above chance (the lower bound of its interval is "
                "%(low).2f)"
            ),
            low=value,
        )
    if check.name == "alpha_not_below_people":
        if value is None:
            return Phrase(gettext_noop("its α with people cannot be set against α between people"))
        return Phrase(
            gettext_noop(
                "its α with people is significantly below α between people (the interval of "
                "the difference ends at %(high).2f)"
            ),
            high=value,
        )
    return Phrase(gettext_noop("it gives the same answer to every item"))


def stand_in(
    alt: AltTestResult | None,
    llm_vs_humans_ci: Interval | None,
    gap_ci: Interval | None,
    distinct_answers: int | None,
) -> StandIn:
    """The rule applied to one block's figures (see the module's docstring)."""
    return StandIn(
        (
            Check(
                "alt_test",
                alt is not None and alt.passed,
                None if alt is None else alt.winning_rate,
            ),
            Check(
                "alpha_above_zero",
                llm_vs_humans_ci is not None and llm_vs_humans_ci[0] > 0,
                None if llm_vs_humans_ci is None else llm_vs_humans_ci[0],
            ),
            Check(
                "alpha_not_below_people",
                gap_ci is not None and gap_ci[1] >= 0,
                None if gap_ci is None else gap_ci[1],
            ),
            Check(
                "answers_vary",
                distinct_answers is not None and distinct_answers > 1,
                None if distinct_answers is None else float(distinct_answers),
            ),
        )
    )


def on_every_dimension(verdicts: Sequence[StandIn]) -> StandIn | None:
    """The verdict over several dimensions: each check holds only where it holds on all.

    Its figure is the least of the dimensions' (for every check, more is better), so the
    whole-file verdict never says more than the weakest dimension does. None for no verdict.
    """
    if not verdicts:
        return None
    checks = []
    for name in CHECKS:
        found = [verdict.check(name) for verdict in verdicts]
        values = [check.value for check in found]
        known = [value for value in values if value is not None]
        least = min(known) if len(known) == len(values) else None
        checks.append(Check(name, all(check.passed for check in found), least))
    return StandIn(tuple(checks))


def withheld_over(dimensions: Sequence[StandIn], pooled: StandIn | None = None) -> Phrase | None:
    """Why a verdict over ``dimensions`` is withheld, or None when it can be given.

    A dimension is tested when its alt-test ran. With none tested there is no verdict: a
    handful of transcripts, each counted once per dimension, cannot show what no dimension can.
    With ``pooled`` (the verdict of the dimensions pooled into one block), it is also withheld
    when it would pass where every tested dimension fails, or fail where every one passes.
    """
    tested = [verdict for verdict in dimensions if verdict.check("alt_test").value is not None]
    if not tested:
        return Phrase(
            gettext_noop(
                "none of the %(n)d dimensions could be tested on its own by the alternative "
                "annotator test"
            ),
            n=len(dimensions),
        )
    if pooled is None or any(verdict.stands_in == pooled.stands_in for verdict in tested):
        return None
    if pooled.stands_in:
        return Phrase(
            gettext_noop(
                "the pooled dimensions pass the rule, but each of the %(n)d dimensions tested "
                "on its own fails it"
            ),
            n=len(tested),
        )
    return Phrase(
        gettext_noop(
            "the pooled dimensions fail the rule, but each of the %(n)d dimensions tested on "
            "its own passes it"
        ),
        n=len(tested),
    )
