"""The one check of endpoint URLs: form, not destination."""

from __future__ import annotations

import pytest
from django.test import override_settings

from evalsite.endpoint_url import EndpointURLError, endpoint_url


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8001/v1",
        "https://api.openai.com/v1",
        "http://localhost/chat",
        "http://[::1]:8080/ok",
        "http://10.0.0.7:1/",
        "http://192.168.1.20:65535/reply",
        "https://team-a.example.org/bot/",
        "http://bücher.example/v1",
    ],
)
def test_it_accepts_well_formed_urls_including_loopback_and_private(url: str) -> None:
    assert endpoint_url(f"  {url} ") == url


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://[::1/ok", "missing a closing bracket"),
        ("http://[::1]x/ok", "only a port may follow"),
        ("http://[not-v6]:80/", "is not an IPv6 address"),
        ("http://::1/ok", "must be written in brackets"),
        ("http://host:99999/", "from 1 to 65535, not 99999"),
        ("http://host:0/", "from 1 to 65535, not 0"),
        ("http://host:80a/", "the port must be a number"),
        ("http://host:/", "the port must be a number"),
        ("ftp://host/", "must start with http:// or https://"),
        ("localhost:8000", "must start with http:// or https://"),
        ("http:///v1", "has no host"),
        ("http://user:secret@host/", "user name or password"),
        ("http://host/#top", "fragment"),
        ("http://ho st/", "spaces or control characters"),
        ("http://host\x00/", "spaces or control characters"),
        ("http://-bad-.example/", "is not a host name"),
        ("http://a..b/", "is not a host name"),
        ("", "an endpoint URL is needed"),
        (None, "an endpoint URL is needed"),
        ("http://h/" + "a" * 2000, "longer than 2000"),
    ],
)
def test_it_refuses_malformed_urls_with_words_not_tracebacks(url: object, said: str) -> None:
    with pytest.raises(EndpointURLError, match=said):
        endpoint_url(url)


def test_an_operator_may_restrict_hosts() -> None:
    with override_settings(ENDPOINT_HOSTS=[".example.org", "127.0.0.1"]):
        assert endpoint_url("https://bots.example.org/v1")
        assert endpoint_url("http://127.0.0.1:9000/")
        with pytest.raises(EndpointURLError, match="not among the hosts this site may call"):
            endpoint_url("http://10.0.0.7/")
    assert endpoint_url("http://10.0.0.7/", hosts=[]) == "http://10.0.0.7/"
