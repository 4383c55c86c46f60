"""The one check of an endpoint URL that EvalSite will send requests to.

Systems under test (``http`` and ``openai`` kinds), the named LLM credentials and the
commands all read their URLs through :func:`endpoint_url`. It checks the URL's form:
an http or https scheme, a host that is a DNS name or an IP address (IPv6 in brackets),
a port from 1 to 65535, no user name or password and no fragment. It does not check
where the URL leads: for the URLs coordinators give (systems, credentials), loopback and
private addresses stay allowed, because teams run their systems next to EvalSite; the URLs
participants give are held to public addresses as well (`evalsite.endpoint_addresses`).
An operator who wants more sets ``ENDPOINT_HOSTS`` (``EVALSITE_ENDPOINT_HOSTS``), a list of
hosts in the form of ``ALLOWED_HOSTS`` (``.example.org`` matches the domain and its
subdomains); empty allows every host.

Every refusal is an :class:`EndpointURLError` whose message says what is wrong in words,
never a traceback.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import validate_host
from django.utils.translation import gettext as _

MAX_LENGTH = 2000
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")
_FORBIDDEN = re.compile(r"[\x00-\x20\x7f]")
_AUTHORITY = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)")


class EndpointURLError(ValueError):
    """A URL that EvalSite will not send requests to; the message says why."""


def endpoint_url(value: object, hosts: Sequence[str] | None = None) -> str:
    """``value`` without surrounding spaces, as a checked endpoint URL; EndpointURLError if not.

    ``hosts`` restricts the host (default: the ``ENDPOINT_HOSTS`` setting; empty allows all).
    """
    if not isinstance(value, str) or not value.strip():
        raise EndpointURLError(_("an endpoint URL is needed"))
    text = value.strip()
    if len(text) > MAX_LENGTH:
        raise EndpointURLError(
            _("the URL is longer than %(limit)d characters") % {"limit": MAX_LENGTH}
        )
    if _FORBIDDEN.search(text):
        raise EndpointURLError(_("the URL contains spaces or control characters"))
    found = _AUTHORITY.match(text)
    if found is None or found.group(1).lower() not in {"http", "https"}:
        raise EndpointURLError(_("the URL must start with http:// or https://"))
    netloc = found.group(2)
    if "@" in netloc:
        raise EndpointURLError(_("the URL must not contain a user name or password"))
    if "#" in text:
        raise EndpointURLError(_("the URL must not contain a fragment (#…)"))
    host = _host(netloc)
    _port(netloc)
    try:
        urlsplit(text)
    except ValueError as error:
        raise EndpointURLError(_("the URL cannot be read: %(error)s") % {"error": error}) from None
    allowed = list(settings.ENDPOINT_HOSTS if hosts is None else hosts)
    if allowed and not validate_host(host.strip("[]").lower(), allowed):
        raise EndpointURLError(
            _("the host %(host)s is not among the hosts this site may call") % {"host": host}
        )
    return text


def _host(netloc: str) -> str:
    """The host part of ``netloc`` (IPv6 addresses keep their brackets), checked."""
    if netloc.startswith("["):
        address, bracket, rest = netloc[1:].partition("]")
        if not bracket:
            raise EndpointURLError(_("the URL's IPv6 address is missing a closing bracket"))
        if rest and not rest.startswith(":"):
            raise EndpointURLError(_("only a port may follow an IPv6 address's bracket"))
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            raise EndpointURLError(
                _("%(address)s is not an IPv6 address") % {"address": address}
            ) from None
        return f"[{address}]"
    host = netloc.rpartition(":")[0] if ":" in netloc else netloc
    if not host:
        raise EndpointURLError(_("the URL has no host"))
    if ":" in host or "]" in host:
        raise EndpointURLError(_("an IPv6 address in a URL must be written in brackets"))
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise EndpointURLError(_("%(host)s is not a host name") % {"host": host}) from None
    labels = ascii_host.rstrip(".").split(".")
    if len(ascii_host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise EndpointURLError(_("%(host)s is not a host name") % {"host": host})
    return host


def _port(netloc: str) -> int | None:
    """The explicit port of ``netloc``, checked to be 1 to 65535; None when there is none."""
    after_host = netloc.rpartition("]")[2] if netloc.startswith("[") else netloc
    if ":" not in after_host:
        return None
    text = after_host.rpartition(":")[2]
    if not text.isascii() or not text.isdigit():
        raise EndpointURLError(_("the port must be a number from 1 to 65535"))
    port = int(text)
    if not 1 <= port <= 65535:
        raise EndpointURLError(
            _("the port must be a number from 1 to 65535, not %(port)d") % {"port": port}
        )
    return port
