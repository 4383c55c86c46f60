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
    assert measures.entropy.ci is None
    assert "only 4 responders" in measures.entropy.notes[0]


def test_the_interval_resamples_responders_not_mentions() -> None:
    # Ten responders each mention their own item 50 times: log2(10) = 3.32 bits. Resampling
    # the 500 mentions would keep nearly every item and every resample near 3.32; resampling
    # responders draws about 6.5 distinct ones (entropy about 2.6): every resample lies below
    # the value, so the basic interval, reflected about it, lies above it and says so.
    answers = [ItemsTalkAnswer(f"r{i}", (f"item{i}",) * 50) for i in range(10)]
    measures = items_talk(answers, resamples=400, seed=3)
    assert measures.entropy.value == pytest.approx(math.log2(10))
    assert measures.entropy.ci is not None
    low, high = measures.entropy.ci
    assert math.log2(10) < low < high
    assert high > 4.0
    assert "the CI lies above the value" in measures.entropy.notes[0]


def test_the_interval_holds_the_value_on_many_responders() -> None:
    # 60 responders over 6 items: resamples keep every item, so the bias is small and the
    # interval holds the value, with no note.
    answers = [ItemsTalkAnswer(f"r{i}", (f"item{i % 6}", f"item{i % 5}")) for i in range(60)]
    measures = items_talk(answers, resamples=300, seed=1)
    assert measures.entropy.ci is not None and measures.entropy.value is not None
    low, high = measures.entropy.ci
    assert low < measures.entropy.value < high
    assert measures.entropy.notes == ()


def test_the_interval_is_seeded() -> None:
    answers = [ItemsTalkAnswer(f"r{i}", (f"x{i % 4}", f"y{i % 7}")) for i in range(15)]
    first = items_talk(answers, resamples=200, seed=5).entropy.ci
    again = items_talk(answers, resamples=200, seed=5).entropy.ci
    other = items_talk(answers, resamples=200, seed=6).entropy.ci
    assert first == again
    assert first != other


def test_several_answers_of_one_responder_are_one_unit() -> None:
    measures = items_talk(
        [ItemsTalkAnswer("r1", ("A",)), ItemsTalkAnswer("r1", ("B",))], resamples=0
    )
    assert measures.n_responders == 1
    assert measures.entropy.value == pytest.approx(1.0)
