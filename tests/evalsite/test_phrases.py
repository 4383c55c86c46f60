"""Statistics sentences read as before in English, and translate with their parameters."""

from __future__ import annotations

import json
import pickle
import re

import numpy as np
import pandas as pd
from django.utils import translation

from evalsite.agreement.bootstrap import ci_undefined_reason
from evalsite.agreement.common import StatisticUndefined
from evalsite.agreement.engine import agreement_blocks
from evalsite.agreement.entries import Entry, entry_notes
from evalsite.agreement.phrases import (
    Clauses,
    Listing,
    Phrase,
    from_json,
    level_name,
    listed,
    notes_text,
    reason_of,
    shown,
    to_json,
)
from evalsite.agreement.rates import RatioOfSums
from tests.chinese_text import ENGLISH_RUN

NULL = Phrase("%(fields)s are null: %(reason)s.", fields=Listing(("a", "b", "c")), reason="")


def test_a_phrase_reads_as_the_english_sentence_it_replaced() -> None:
    statistic = RatioOfSums(np.ones(3), np.ones(3))
    reason = ci_undefined_reason(statistic, 100)
    assert reason == "only 3 item(s) can be used; a bootstrap CI needs at least 10"
    assert isinstance(reason, Phrase)
    assert Phrase("%(x)s; %(y)s", x="a", y=Clauses(("b", "c"))) == "a; b; c"
    assert NULL.startswith("a, b and c are null")


def test_it_is_shown_in_chinese_with_its_parameters_and_chinese_punctuation() -> None:
    statistic = RatioOfSums(np.ones(3), np.ones(3))
    reason = ci_undefined_reason(statistic, 100)
    assert reason is not None
    note = entry_notes([Entry("mae", "mae_ci", value=1.0, interval_reason=reason)])[0]
    with translation.override("zh-hans"):
        text = shown(note)
    assert text == "mae_ci 为空：只有 3 个条目可用；自助法置信区间至少需要 10 个。"
    with translation.override("en"):
        assert shown(note) == "mae_ci is null: " + reason + "."


def test_lists_are_joined_in_the_readers_language() -> None:
    note = entry_notes([Entry("alpha.x", "alpha_ci.x", reason="r"), Entry("y", "y_ci", reason="r")])
    with translation.override("zh-hans"):
        assert shown(note[0]).startswith("alpha.x、alpha_ci.x、y 和 y_ci 为空")
    with translation.override("en"):
        assert shown(note[0]).startswith("alpha.x, alpha_ci.x, y and y_ci are null")


def test_a_phrase_survives_json_pickling_and_an_exception() -> None:
    note = Phrase(
        "%(fields)s is null: %(reason)s.",
        fields=Listing(("mae",)),
        reason=Phrase("only %(n)d item(s)", n=2),
    )
    again = from_json(json.loads(json.dumps(to_json(note))))
    assert isinstance(again, Phrase) and again == note
    assert to_json(again) == to_json(note)
    assert pickle.loads(pickle.dumps(note)) == note
    assert isinstance(pickle.loads(pickle.dumps(note)), Phrase)
    kept = reason_of(StatisticUndefined(note))
    assert isinstance(kept, Phrase) and kept.params == note.params
    assert from_json("plain text") == "plain text"


def test_the_engines_notes_on_a_constant_read_as_chinese_sentences() -> None:
    rows = [(item, rater, 3.0) for item in range(4) for rater in ("x", "y", "gpt")]
    frame = pd.DataFrame(rows, columns=["item", "rater", "score"])
    block = agreement_blocks(frame, llm="gpt", level="interval", resamples=20)["all"]
    assert block.notes and all(isinstance(note, Phrase) for note in block.notes)
    with translation.override("zh-hans"):
        text = notes_text(block.notes)
    codes = r"\b[a-z_]+(?:\.[a-z_]+)+\b|\balt_test\b"
    assert ENGLISH_RUN.findall(re.sub(codes, " ", text)) == [], text
    assert "所有评分都是 3" in text


def test_levels_and_lists_are_shown_in_the_readers_language() -> None:
    with translation.override("zh-hans"):
        assert level_name("ordinal") == "定序"
        assert listed(["Sa", "F"]) == "Sa、F"
    with translation.override("en"):
        assert level_name("ordinal") == "ordinal"
        assert listed(["Sa", "F"]) == "Sa, F"
    assert level_name("other") == "other"
