"""Named LLM credentials: the only API keys a page may ask EvalSite to send.

An operator lists them in ``EVALSITE_LLM_KEYS`` as ``name:ENVVAR@base_url`` entries
separated by commas, for example::

    EVALSITE_LLM_KEYS=openai:OPENAI_API_KEY@https://api.openai.com/v1,local:@http://127.0.0.1:8001/v1

Each credential binds the environment variable holding a key to the one base URL that key
is sent to; without ``@base_url`` it is OpenAI's. An empty ``ENVVAR`` names a local server
that needs no key. A page (the LLM evaluator, the simulated judges, a system's
configuration) chooses a credential by name and never names an environment variable or a
URL of its own, so no one can make the server send its ``SECRET_KEY`` or database password
to a host of their choosing. The management commands may still name a variable, since
whoever runs them already holds the server's environment.

``settings.LLM_KEYS`` holds the operator's text; :func:`parse_credentials` reads it, and
raises ``ImproperlyConfigured`` when an entry cannot work (the project's app config reads
it once at start-up, so a bad entry stops the server before the first request).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from evalsite.endpoint_url import EndpointURLError, endpoint_url
from evalsite.llm.errors import LLMConfigError

OPENAI_BASE_URL = "https://api.openai.com/v1"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
_ENV_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Credential:
    """A key, by the name of the variable that holds it, bound to the one URL it goes to."""

    name: str
    base_url: str
    env_var: str = ""


def parse_credentials(text: str) -> tuple[Credential, ...]:
    """``EVALSITE_LLM_KEYS`` as credentials; ImproperlyConfigured names the entry at fault."""
    credentials: dict[str, Credential] = {}
    for entry in (item.strip() for item in text.split(",")):
        if not entry:
            continue
        name, colon, rest = entry.partition(":")
        env_var, at, base_url = rest.partition("@")
        name, env_var = name.strip(), env_var.strip()
        problem = ""
        if not colon or not _NAME.match(name):
            problem = "write name:ENVVAR@base_url, with a name of letters, digits, '.', '-', '_'"
        elif env_var and not _ENV_VAR.match(env_var):
            problem = f"{env_var!r} is not an environment variable's name"
        elif name in credentials:
            problem = f"the name {name!r} is given twice"
        if not problem:
            try:
                url = endpoint_url(base_url if at else OPENAI_BASE_URL, hosts=[]).rstrip("/")
            except EndpointURLError as error:
                problem = f"the base URL cannot be used: {error}"
        if problem:
            raise ImproperlyConfigured(f"EVALSITE_LLM_KEYS entry {entry!r}: {problem}")
        credentials[name] = Credential(name, url, env_var)
    return tuple(credentials.values())


def credentials() -> list[Credential]:
    """The credentials the operator configured, in the order given."""
    return list(parse_credentials(settings.LLM_KEYS))


def credential(name: str) -> Credential:
    """The credential called ``name``; LLMConfigError when the operator configured none."""
    configured = credentials()
    for candidate in configured:
        if candidate.name == name:
            return candidate
    known = ", ".join(item.name for item in configured) or "none are configured"
    raise LLMConfigError(f"there is no LLM credential named {name!r} (known: {known})")
