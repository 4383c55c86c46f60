"""Named LLM credentials: pages choose a name, never a variable or a URL."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from pytest_django.fixtures import Settings

from evalsite.llm.config import LLMConfig
from evalsite.llm.credentials import Credential, credential, credentials, parse_credentials
from evalsite.llm.errors import LLMConfigError
from evalsite.llm.forms import EndpointForm


def test_it_reads_names_variables_and_base_urls() -> None:
    parsed = parse_credentials(
        "openai:OPENAI_API_KEY, local:@http://127.0.0.1:8001/v1/ ,"
        "proxy:PROXY_KEY@https://llm.example.org/v1"
    )
    assert parsed == (
        Credential("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
        Credential("local", "http://127.0.0.1:8001/v1", ""),
        Credential("proxy", "https://llm.example.org/v1", "PROXY_KEY"),
    )
    assert parse_credentials("") == ()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("OPENAI_API_KEY", "write name:ENVVAR@base_url"),
        ("a:MY-KEY", "is not an environment variable's name"),
        ("a:K@http://[::1/v1", "missing a closing bracket"),
        ("a:K@http://host:99999/v1", "from 1 to 65535"),
        ("a:K,a:L", "given twice"),
    ],
)
def test_a_bad_entry_stops_the_server_naming_it(text: str, said: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=said):
        parse_credentials(text)


def test_a_configuration_chooses_a_credential_by_name(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LLM_KEYS = "remote:EVALSITE_TEST_REMOTE_KEY@https://llm.example.org/v1"
    monkeypatch.setenv("EVALSITE_TEST_REMOTE_KEY", "sk-remote")
    assert [item.name for item in credentials()] == ["remote"]
    config = LLMConfig.from_config({"credential": "remote", "model": "m"})
    assert config.base_url == "https://llm.example.org/v1"
    assert config.api_key() == "sk-remote"
    with pytest.raises(LLMConfigError, match="no LLM credential named 'other'"):
        credential("other")
    with pytest.raises(LLMConfigError, match="remove api_key_env, base_url"):
        LLMConfig.from_config(
            {"credential": "remote", "model": "m", "base_url": "http://x/", "api_key_env": "K"}
        )


def test_the_endpoint_form_offers_only_named_credentials(settings: Settings) -> None:
    settings.LLM_KEYS = "local:@http://127.0.0.1:8001/v1"
    form = EndpointForm(
        {
            "credential": "local",
            "model": "qwen",
            "concurrency": 2,
            "base_url": "http://attacker.example/",
            "api_key_env": "SECRET_KEY",
        }
    )
    assert form.is_valid(), form.errors
    settings_sent = form.llm_settings(form.cleaned_data)
    assert settings_sent == {"credential": "local", "model": "qwen", "concurrency": 2}
    assert LLMConfig.from_config(settings_sent).api_key_env == ""

    refused = EndpointForm({"credential": "SECRET_KEY", "model": "qwen", "concurrency": 2})
    assert not refused.is_valid() and "credential" in refused.errors


def test_without_any_endpoint_the_form_says_why_nothing_can_be_chosen(settings: Settings) -> None:
    from django.utils import translation

    settings.LLM_KEYS = ""
    with translation.override("en"):
        form = EndpointForm({"model": "qwen", "concurrency": 2})
        assert "EVALSITE_LLM_KEYS" in str(form.fields["credential"].help_text)
        assert not form.is_valid()
        assert "No LLM endpoint is configured" in form.errors["credential"][0]
