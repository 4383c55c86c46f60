"""Items talk: entropy in bits of the mentions left once each prompt's items are removed."""

from __future__ import annotations

import math

import pytest

from evalsite.fidelity.items_talk import ItemsTalkAnswer, items_talk, kept_mentions


def test_prompt_items_are_removed_and_repeats_kept() -> None:
    answer = ItemsTalkAnswer("r1", mentions=("P", "A", "A", "B", "P"), prompt_items=("P",))
    assert kept_mentions(answer) == ["A", "A", "B"]


def test_entropy_is_in_bits_over_what_remains() -> None:
    # Without the prompt item P there are four items mentioned once each: log2(4) = 2 bits.
    # Were P kept, five items once each but P twice would give more than 2 bits.
    measures = items_talk(
        [
            ItemsTalkAnswer("r1", ("P", "A", "B"), ("P",)),
            ItemsTalkAnswer("r2", ("C", "D", "P"), ("P",)),
        ],
        resamples=0,
    )
    assert measures.entropy.value == pytest.approx(2.0)
    assert (measures.n_mentions, measures.n_distinct, measures.n_responders) == (4, 4, 2)


def test_entropy_of_an_uneven_distribution() -> None:
    # A 3 times, B and C once: -(0.6 log2 0.6 + 2 * 0.2 log2 0.2) = 1.3710 bits.
    measures = items_talk(
        [
            ItemsTalkAnswer("r1", ("A", "B", "A")),
            ItemsTalkAnswer("r2", ("C",)),
            ItemsTalkAnswer("r3", ("A",)),
        ],
        resamples=0,
    )
    expected = -(0.6 * math.log2(0.6) + 2 * 0.2 * math.log2(0.2))
    assert measures.entropy.value == pytest.approx(expected)
    assert measures.entropy.value == pytest.approx(1.37095, abs=1e-5)
    assert measures.n_mentions == 5


def test_one_item_repeated_has_zero_bits() -> None:
    measures = items_talk([ItemsTalkAnswer(f"r{i}", ("A", "A")) for i in range(3)], resamples=0)
    assert measures.entropy.value == 0.0


def test_nothing_left_after_removal_gives_null_with_a_note() -> None:
    measures = items_talk([ItemsTalkAnswer("r1", ("P",), ("P",))])
    assert measures.entropy.value is None
    assert measures.entropy.ci is None
    assert "no item is mentioned" in measures.entropy.notes[0]
    assert measures.as_json()["entropy_bits"] is None


def test_a_few_responders_give_no_interval_and_say_so() -> None:
    measures = items_talk([ItemsTalkAnswer(f"r{i}", (str(i),)) for i in range(4)])
    assert measures.entropy.value == pytest.approx(2.0)
    assert measures.entropy.ci is None and measures.entropy_cs.ci is None
    assert "only 4 responders" in measures.entropy_cs.notes[0]


def test_the_plug_in_entropy_has_no_interval_and_says_why() -> None:
    answers = [ItemsTalkAnswer(f"r{i}", (f"item{i % 6}", f"item{i % 5}")) for i in range(60)]
    measures = items_talk(answers, resamples=300)
    assert measures.entropy.ci is None
    assert "compare the Chao–Shen entropy" in measures.entropy.notes[0]
    assert measures.as_json()["entropy_cs_ci"] is not None


def test_the_interval_resamples_responders_not_mentions() -> None:
    # Both groups pool 30 A and 10 B. When each responder says A, A, A, B, leaving one out
    # keeps the shares at 3/4 and 1/4 and the jackknife s.e. is 0; when ten say A three times
    # and five say B twice, leaving one out moves the shares and the interval widens. Had
    # mentions been the unit, the two groups would get the same interval.
    mixed = [ItemsTalkAnswer(f"r{i}", ("A", "A", "A", "B")) for i in range(10)]
    split = [ItemsTalkAnswer(f"r{i}", ("A",) * 3) for i in range(10)]
    split += [ItemsTalkAnswer(f"s{i}", ("B",) * 2) for i in range(5)]
    even, clustered = items_talk(mixed).entropy_cs, items_talk(split).entropy_cs
    assert even.value == pytest.approx(clustered.value)
    assert even.ci is not None and clustered.ci is not None
    assert even.ci[1] - even.ci[0] == pytest.approx(0.0, abs=1e-9)
    assert clustered.ci[1] - clustered.ci[0] > 0.01


def test_the_interval_holds_the_value_on_many_responders() -> None:
    answers = [ItemsTalkAnswer(f"r{i}", (f"item{i % 6}", f"item{i % 5}")) for i in range(60)]
    measures = items_talk(answers, resamples=300, seed=1)
    entropy = measures.entropy_cs
    assert entropy.ci is not None and entropy.value is not None
    low, high = entropy.ci
    assert low < entropy.value < high
    # value ± 1.96 s.e.: the interval is symmetric about the value.
    assert entropy.value - low == pytest.approx(high - entropy.value)
    assert entropy.notes == ()


def test_the_interval_does_not_depend_on_the_seed() -> None:
    # The jackknife leaves each responder out once: there is nothing to draw.
    answers = [ItemsTalkAnswer(f"r{i}", (f"x{i % 4}", f"y{i % 7}")) for i in range(15)]
    first = items_talk(answers, resamples=200, seed=5).entropy_cs.ci
    other = items_talk(answers, resamples=200, seed=6).entropy_cs.ci
    assert first is not None
    assert first == other
    assert items_talk(answers, resamples=0).entropy_cs.ci is None


def test_a_responder_who_holds_every_mention_leaves_no_interval() -> None:
    answers = [ItemsTalkAnswer("r0", ("A", "B", "C"))]
    answers += [ItemsTalkAnswer(f"r{i}", ()) for i in range(1, 12)]
    entropy = items_talk(answers).entropy_cs
    assert entropy.value is not None and entropy.ci is None
    assert "leaves nothing to measure" in entropy.notes[0]


def test_at_count_subsamples_the_group_s_answers() -> None:
    # 40 answers, each naming one of 8 items once (5 answers per item). Five answers at a
    # time name from 2 to 5 items, so the entropy at 5 answers varies from subsample to
    # subsample, and differs from the entropy of all 40.
    answers = [ItemsTalkAnswer(f"r{i}", (f"item{i % 8}",)) for i in range(40)]
    measures = items_talk(answers, resamples=0)
    assert measures.n_answers == 40
    at_five = measures.at_count(5, repeats=50, seed=3)
    assert at_five is not None
    assert (at_five.count, at_five.repeats) == (5, 50)
    assert at_five.low <= at_five.mean <= at_five.high
    assert at_five.sd > 0 and at_five.low < at_five.high
    assert measures.entropy_cs.value is not None
    assert at_five.mean != pytest.approx(measures.entropy_cs.value)
    assert measures.at_count(5, repeats=50, seed=3) == at_five
    assert measures.at_count(5, repeats=50, seed=4) != at_five
    assert measures.at_count(40) is None and measures.at_count(60) is None


def test_several_answers_of_one_responder_are_one_unit() -> None:
    measures = items_talk(
        [ItemsTalkAnswer("r1", ("A",)), ItemsTalkAnswer("r1", ("B",))], resamples=0
    )
    assert measures.n_responders == 1
    assert measures.entropy.value == pytest.approx(1.0)
