"""Recommendation requests: type–token ratio and embedding diversity."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalsite.fidelity.rec_request import RecRequestText, rec_request, type_token_ratio, words


def test_type_token_ratio_by_hand() -> None:
    assert type_token_ratio("The cat, the dog!") == pytest.approx(3 / 4)
    assert type_token_ratio("...") is None


def test_each_chinese_character_is_a_word() -> None:
    assert words("我要看电影我 Sci-Fi") == ["我", "要", "看", "电", "影", "我", "sci", "fi"]
    assert type_token_ratio("我要看电影我") == pytest.approx(5 / 6)


def test_the_group_ratio_is_the_mean_over_requests() -> None:
    # 3/4 and 3/3: mean 0.875 (pooled words would give 5/7).
    texts = [RecRequestText("r1", "the cat the dog"), RecRequestText("r2", "a b c")]
    measures = rec_request(texts, resamples=0)
    assert measures.type_token_ratio.value == pytest.approx(0.875)
    assert measures.embedding_diversity.value is None
    assert measures.as_json()["embedding_diversity"] is None
    assert "no embeddings were given" in str(measures.as_json()["notes"])


def test_embedding_diversity_by_hand() -> None:
    # (1, 0) and (0, 1): centroid (0.5, 0.5); each cosine is 1/sqrt(2); 1 - 0.7071 = 0.2929.
    texts = [RecRequestText("r1", "a"), RecRequestText("r2", "b")]
    measures = rec_request(texts, np.array([[1.0, 0.0], [0.0, 1.0]]), resamples=0)
    assert measures.embedding_diversity.value == pytest.approx(1 - 1 / math.sqrt(2))


def test_the_centroid_is_of_the_raw_embeddings() -> None:
    # (1, 0) and (0, 3): centroid (0.5, 1.5), |centroid| = sqrt(2.5); cosines 0.5 / sqrt(2.5)
    # = 0.3162 and 4.5 / (3 sqrt(2.5)) = 0.9487; 1 - their mean = 0.3675.
    texts = [RecRequestText("r1", "a"), RecRequestText("r2", "b")]
    measures = rec_request(texts, np.array([[1.0, 0.0], [0.0, 3.0]]), resamples=0)
    assert measures.embedding_diversity.value == pytest.approx(0.36754, abs=1e-5)


def test_identical_embeddings_have_no_diversity() -> None:
    texts = [RecRequestText(f"r{i}", "x") for i in range(3)]
    measures = rec_request(texts, np.tile([0.2, 0.5, 0.1], (3, 1)), resamples=0)
    assert measures.embedding_diversity.value == pytest.approx(0.0, abs=1e-12)


def test_the_interval_resamples_responders_with_all_their_requests() -> None:
    rng = np.random.default_rng(0)
    texts = [RecRequestText(f"r{i // 3}", f"word{i} common words here") for i in range(36)]
    measures = rec_request(texts, rng.normal(size=(36, 8)), resamples=200, seed=4)
    assert measures.n_responders == 12
    diversity = measures.embedding_diversity
    assert diversity.value is not None and diversity.ci is not None
    assert diversity.ci[0] <= diversity.value <= diversity.ci[1]


def test_mismatched_or_zero_embeddings_are_refused() -> None:
    texts = [RecRequestText("r1", "a"), RecRequestText("r2", "b")]
    with pytest.raises(ValueError, match="1 embeddings were given for 2 requests"):
        rec_request(texts, np.ones((1, 3)))
    with pytest.raises(ValueError, match="all zeros"):
        rec_request(texts, np.array([[1.0, 0.0], [0.0, 0.0]]))
