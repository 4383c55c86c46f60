"""Embeddings through the LLM client, against the fake endpoint's deterministic embeddings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

import numpy as np
import pytest
from asgiref.sync import async_to_sync

from evalsite.fidelity.rec_request import RecRequestText, rec_request
from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMError
from evalsite.models import LLMCall
from testing.embeddings import deterministic_embedding
from tests.fake_openai import FakeOpenAI, fake_openai_server  # noqa: F401

T = TypeVar("T")


def run(make: Callable[[], Awaitable[T]]) -> T:
    async def main() -> T:
        return await make()

    return async_to_sync(main)()


def client(server: FakeOpenAI, **settings: Any) -> LLMClient:
    config = LLMConfig.from_config({"base_url": server.base_url, "model": server.model, **settings})
    return LLMClient(config, purpose="embeddings test")


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_deterministic_embeddings_follow_shared_words() -> None:
    thriller = deterministic_embedding("a gripping psychological thriller like Memento")
    assert thriller == deterministic_embedding("A gripping psychological thriller like Memento!")
    near = deterministic_embedding("a gripping thriller like Memento please")
    far = deterministic_embedding("rock climbing documentaries about nihilism")
    assert cosine(thriller, near) > cosine(thriller, far)


@pytest.mark.django_db
def test_it_embeds_each_text_in_order_and_records_the_call(fake_openai: FakeOpenAI) -> None:
    texts = ["movies about loneliness", "space movies?", "电影推荐"]
    embeddings = run(lambda: client(fake_openai).embed(texts))
    assert embeddings.vectors == [deterministic_embedding(text) for text in texts]
    assert not embeddings.cached
    assert fake_openai.requests[-1] == {
        "model": fake_openai.model,
        "input": texts,
        "encoding_format": "float",
    }
    call = LLMCall.objects.get()
    assert (call.status, call.purpose, call.prompt_tokens) == ("ok", "embeddings test", 6)
    assert call.response == {"embeddings": embeddings.vectors}


@pytest.mark.django_db
def test_a_cached_embedding_makes_no_request(fake_openai: FakeOpenAI) -> None:
    first = run(lambda: client(fake_openai, cache=True).embed(["space movies?"]))
    again = run(lambda: client(fake_openai, cache=True).embed(["space movies?"]))
    other = run(lambda: client(fake_openai, cache=True).embed(["rock climbing movies"]))
    assert len(fake_openai.requests) == 2
    assert (again.vectors, again.cached, again.prompt_tokens) == (first.vectors, True, 0)
    assert other.vectors != first.vectors
    assert list(LLMCall.objects.order_by("id").values_list("cached", flat=True)) == [
        False,
        True,
        False,
    ]


@pytest.mark.django_db
def test_a_refused_request_is_an_error_and_is_recorded(fake_openai: FakeOpenAI) -> None:
    with pytest.raises(LLMError, match="HTTP 400"):
        run(lambda: client(fake_openai, model="no-such-model").embed(["x"]))
    assert "is not served" in fake_openai.take_violations()[0]
    assert LLMCall.objects.get().status == "error"


@pytest.mark.django_db
def test_generic_requests_are_less_diverse_than_specific_ones(fake_openai: FakeOpenAI) -> None:
    generic = ["need movie recs", "movie recs?", "need movie recs!", "movie recs please"]
    specific = [
        "movies about alcoholism",
        "space movies with long silent shots",
        "rock climbing documentaries",
        "films on nihilism and redemption",
    ]
    measured: dict[str, float | None] = {}
    for name, texts in (("generic", generic), ("specific", specific)):
        llm = client(fake_openai)
        vectors = run(partial(llm.embed, texts)).vectors
        requests = [RecRequestText(f"r{i}", text) for i, text in enumerate(texts)]
        diversity = rec_request(requests, np.array(vectors), resamples=0).embedding_diversity
        measured[name] = diversity.value
    assert measured["generic"] is not None and measured["specific"] is not None
    assert measured["generic"] < measured["specific"]
