"""A provider that echoes the key it was sent never makes EvalSite show or store it."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from django.urls import reverse

from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMError
from evalsite.llm.redaction import MASK, redact
from evalsite.models import LLMCall
from liveeval.models import DialogueSystem
from tests.fake_openai import FakeOpenAI, fake_openai_server, status  # noqa: F401

KEY = "sk-proj-Zq81vLw2XcT0pQe9RbNs4YhKm7Ud"
OTHER_KEY = "other-3f9c1a7e5b2d8046c0de"


@pytest.fixture
def keyed(fake_openai: FakeOpenAI, settings: Any, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    """Two named credentials: ``fake`` (in use) and ``spare``, whose key is never sent."""
    settings.LLM_KEYS = (
        f"fake:EVALSITE_TEST_FAKE_KEY@{fake_openai.base_url},"
        "spare:EVALSITE_TEST_SPARE_KEY@https://llm.example.org/v1"
    )
    monkeypatch.setenv("EVALSITE_TEST_FAKE_KEY", KEY)
    monkeypatch.setenv("EVALSITE_TEST_SPARE_KEY", OTHER_KEY)
    return fake_openai


ECHOES = [
    f"Incorrect API key provided: {KEY}.",
    f"Incorrect API key provided: {KEY[:7]}{'*' * 22}{KEY[-4:]}.",
    f"Incorrect API key provided: sk-...{KEY[-4:]}",
    f"key {KEY[:20]} is not valid",
    f"your organisation also holds {OTHER_KEY}",
]


@pytest.mark.django_db
@pytest.mark.parametrize("echo", ECHOES)
def test_an_echoed_key_is_cut_from_the_error_and_its_record(keyed: FakeOpenAI, echo: str) -> None:
    keyed.script(status(401, message=echo))
    config = LLMConfig.from_config({"credential": "fake", "model": keyed.model})

    async def call() -> None:
        async with LLMClient(config, purpose="test") as llm:
            await llm.chat([{"role": "user", "content": "Hello"}])

    with pytest.raises(LLMError) as raised:
        async_to_sync(call)()
    stored = LLMCall.objects.get().error
    for text in (raised.value.reason, str(raised.value), stored):
        assert MASK in text and "HTTP 401" in text
        for secret in (KEY, KEY[:20], KEY[-12:], OTHER_KEY, f"{KEY[-4:]}"):
            assert secret not in text, (secret, text)
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_ordinary_words_are_left_alone() -> None:
    text = "HTTP 429: Rate limit reached for gpt-4o-mini in organization org-abc... try again."
    assert redact(text, [KEY, OTHER_KEY]) == text


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "words"), [("en", "failed after"), ("zh-hans", "毫秒后失败")])
def test_testing_a_system_never_shows_the_echoed_key(
    keyed: FakeOpenAI, coordinator_client: Client, language: str, words: str
) -> None:
    keyed.script(status(401, message=f"Incorrect API key provided: {KEY}"))
    agent = DialogueSystem.objects.create(
        slug="agent",
        name="Agent",
        alias="System G",
        kind="openai",
        config={"credential": "fake", "model": keyed.model, "max_attempts": 1},
    )
    coordinator_client.cookies["django_language"] = language
    response = coordinator_client.post(
        reverse("liveeval:system_test", args=[agent.pk]), follow=True
    )
    page = response.content.decode()
    assert words in page and "HTTP 401" in page and MASK in page
    assert KEY not in page and KEY[-12:] not in page
    assert KEY not in LLMCall.objects.get().error
