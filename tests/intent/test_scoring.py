"""The official intent F against macro-F1, on confusion matrices worked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

from intent.scoring import score

LABELS = ("a", "b", "c")


def indices(text: str) -> np.ndarray:
    return np.array(["abc-".index(ch) for ch in text], dtype=np.int64)


# gold a a a a b b c c
# pred a a a b b a a a      c is never predicted
# confusion  a: [3 1 0]  b: [1 1 0]  c: [2 0 0]
GOLD = indices("aaaabbcc")
PRED = indices("aaabbaaa")


def test_it_counts_the_confusion_matrix() -> None:
    scores = score(LABELS, GOLD, PRED)
    assert scores.confusion == ((3, 1, 0), (1, 1, 0), (2, 0, 0))
    assert [row.support for row in scores.per_class] == [4, 2, 2]
    assert [row.predicted for row in scores.per_class] == [6, 2, 0]


def test_a_never_predicted_class_has_precision_zero() -> None:
    c = score(LABELS, GOLD, PRED).per_class[2]
    assert (c.precision, c.recall, c.f1) == (0.0, 0.0, 0.0)


def test_official_f_is_the_harmonic_mean_of_macro_precision_and_recall() -> None:
    scores = score(LABELS, GOLD, PRED)
    # P: a 3/6, b 1/2, c 0 -> 1/3;  R: a 3/4, b 1/2, c 0 -> 5/12
    assert scores.macro_precision == pytest.approx(1 / 3)
    assert scores.macro_recall == pytest.approx(5 / 12)
    # F = 2 (1/3)(5/12) / (1/3 + 5/12) = (10/36) / (9/12) = 10/27
    assert scores.official_f == pytest.approx(10 / 27)


def test_macro_f1_is_the_mean_of_the_per_class_f1_and_differs() -> None:
    scores = score(LABELS, GOLD, PRED)
    # F1: a 2(.5)(.75)/1.25 = .6, b .5, c 0 -> 1.1/3 = 11/30
    assert [row.f1 for row in scores.per_class] == pytest.approx([0.6, 0.5, 0.0])
    assert scores.macro_f1 == pytest.approx(11 / 30)
    assert scores.official_f != pytest.approx(scores.macro_f1)
    assert scores.accuracy == pytest.approx(4 / 8)


def test_it_averages_over_the_gold_classes_only() -> None:
    # Four labels are known but "d" never occurs in the gold answers; predicting it is wrong and
    # does not add a class with recall 0/0 to the averages.
    labels = ("a", "b", "c", "d")
    gold = np.array([0, 0, 1, 2], dtype=np.int64)
    pred = np.array([0, 3, 1, 2], dtype=np.int64)
    scores = score(labels, gold, pred)
    # P: a 1, b 1, c 1 -> 1;  R: a 1/2, b 1, c 1 -> 5/6;  F = 2(5/6)/(11/6) = 10/11
    assert scores.macro_precision == pytest.approx(1.0)
    assert scores.macro_recall == pytest.approx(5 / 6)
    assert scores.official_f == pytest.approx(10 / 11)
    assert scores.per_class[3].support == 0


def test_an_unanswered_utterance_is_wrong_and_counts_towards_no_precision() -> None:
    gold = indices("aabb")
    pred = np.array([0, 2, 1, 2], dtype=np.int64)  # 2 = len(labels): no answer
    scores = score(("a", "b"), gold, pred)
    assert scores.unanswered == (1, 1)
    # P: a 1/1, b 1/1 -> 1;  R: 1/2, 1/2 -> 1/2;  F = 2(.5)/1.5 = 2/3
    assert scores.macro_precision == pytest.approx(1.0)
    assert scores.official_f == pytest.approx(2 / 3)
    assert scores.accuracy == pytest.approx(0.5)


def test_tied_precision_and_recall_make_official_f_equal_to_both() -> None:
    # Symmetric errors: a<->b once each, so every class has P = R = 2/3 and F1 = 2/3.
    scores = score(("a", "b"), indices("aaabbb"), indices("aabbba"))
    assert scores.macro_precision == pytest.approx(scores.macro_recall)
    assert scores.official_f == pytest.approx(2 / 3)
    assert scores.macro_f1 == pytest.approx(2 / 3)


def test_nothing_right_gives_zero_not_a_division_error() -> None:
    scores = score(("a", "b"), indices("ab"), indices("ba"))
    assert (scores.official_f, scores.macro_f1, scores.accuracy) == (0.0, 0.0, 0.0)


def test_it_agrees_with_scikit_learn_on_random_labels() -> None:
    generator = np.random.default_rng(3)
    gold = generator.integers(0, 31, 2000)
    pred = np.where(generator.random(2000) < 0.6, gold, generator.integers(0, 31, 2000))
    labels = tuple(f"c{i}" for i in range(31))
    scores = score(labels, gold, pred)
    kwargs = {"labels": list(range(31)), "average": "macro", "zero_division": 0}
    p = metrics.precision_score(gold, pred, **kwargs)
    r = metrics.recall_score(gold, pred, **kwargs)
    assert scores.macro_precision == pytest.approx(p)
    assert scores.macro_recall == pytest.approx(r)
    assert scores.official_f == pytest.approx(2 * p * r / (p + r))
    assert scores.macro_f1 == pytest.approx(metrics.f1_score(gold, pred, **kwargs))
    assert scores.confusion == tuple(
        map(tuple, metrics.confusion_matrix(gold, pred, labels=list(range(31))).tolist())
    )


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), min_size=1),
        )
    )
)
def test_it_matches_scikit_learn_over_the_gold_classes(
    case: tuple[int, list[tuple[int, int]]],
) -> None:
    k, pairs = case
    gold = np.array([g for g, _ in pairs], dtype=np.int64)
    pred = np.array([p for _, p in pairs], dtype=np.int64)
    scores = score(tuple(f"c{i}" for i in range(k)), gold, pred)
    present = sorted(set(gold.tolist()))
    kwargs = {"labels": present, "average": "macro", "zero_division": 0}
    p = metrics.precision_score(gold, pred, **kwargs)
    r = metrics.recall_score(gold, pred, **kwargs)
    assert scores.macro_precision == pytest.approx(p)
    assert scores.macro_recall == pytest.approx(r)
    assert scores.official_f == pytest.approx(0.0 if p + r == 0 else 2 * p * r / (p + r))
    assert scores.macro_f1 == pytest.approx(metrics.f1_score(gold, pred, **kwargs))
    assert scores.accuracy == pytest.approx(metrics.accuracy_score(gold, pred))


def test_a_constant_predictor_scores_by_hand() -> None:
    # gold a a b b b b b c, and every utterance predicted "b" (the majority class).
    scores = score(LABELS, indices("aabbbbbc"), indices("bbbbbbbb"))
    assert [row.predicted for row in scores.per_class] == [0, 8, 0]
    a, b, c = scores.per_class
    # a and c are never predicted: precision 0, and recall 0 and F1 0 with it.
    assert (a.precision, a.recall, a.f1) == (0.0, 0.0, 0.0)
    assert (c.precision, c.recall, c.f1) == (0.0, 0.0, 0.0)
    # b: P 5/8, R 1, F1 2 (5/8) / (13/8) = 10/13
    assert (b.precision, b.recall, b.f1) == pytest.approx((5 / 8, 1.0, 10 / 13))
    # P̄ = (5/8) / 3 = 5/24, R̄ = 1/3;  F = 2 (5/24)(1/3) / (5/24 + 8/24) = 10/39
    assert scores.macro_precision == pytest.approx(5 / 24)
    assert scores.macro_recall == pytest.approx(1 / 3)
    assert scores.official_f == pytest.approx(10 / 39)
    # macro-F1 = (10/13) / 3 = 10/39 too: for a constant predictor the two coincide.
    assert scores.macro_f1 == pytest.approx(10 / 39)
    assert scores.accuracy == pytest.approx(5 / 8)
    gold, pred = indices("aabbbbbc"), indices("bbbbbbbb")
    sk_p, sk_r, _, _ = metrics.precision_recall_fscore_support(
        gold, pred, labels=[0, 1, 2], average="macro", zero_division=0
    )
    assert (scores.macro_precision, scores.macro_recall) == pytest.approx((sk_p, sk_r))
