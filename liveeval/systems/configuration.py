"""Whether a system's configuration can work, with the setting at fault named; free aliases.

The ``add_system`` command and the system pages both check a configuration here,
through the adapter's own reader (:class:`~liveeval.systems.http.HttpConfig`,
:class:`~liveeval.systems.openai.AgentConfig`), so that a page accepts exactly
what the command accepts. Those readers start every message with the key at
fault (``"endpoint must be an http(s) URL, ..."``); :attr:`SystemConfigError.key`
carries it so that a form can show the error on its field.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Mapping
from typing import Any

from evalsite.llm.errors import LLMConfigError
from liveeval.models import DialogueSystem
from liveeval.systems.http import HttpConfig, HttpConfigError
from liveeval.systems.openai import AgentConfig

BUILT_IN = ("reference", "baseline")


class SystemConfigError(ValueError):
    """A configuration that cannot work; ``key`` is the setting at fault, when one is."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


def check_config(kind: str, config: Mapping[str, Any]) -> None:
    """Raise SystemConfigError when a system of ``kind`` cannot work with ``config``."""
    try:
        if kind == "http":
            HttpConfig.from_config(config)
        elif kind == "openai":
            AgentConfig.from_config(config)
        elif kind in BUILT_IN:
            if config:
                raise SystemConfigError(f"a built-in system takes no settings, not {dict(config)}")
        else:
            raise SystemConfigError(f"there is no system kind {kind!r}", key="kind")
    except (HttpConfigError, LLMConfigError) as error:
        message = str(error)
        first = message.split(" ", 1)[0]
        raise SystemConfigError(message, key=first if first in config else None) from None


def reply_timeout(kind: str, config: Mapping[str, Any], default: float) -> float:
    """Seconds to wait for one reply: the system's own timeout when it has a longer one."""
    own = config.get("timeout") if kind == "http" else None
    return max(default, float(own)) if isinstance(own, int | float) else default


def free_alias() -> str:
    """The first of 'System A' ... 'System Z', then 'System 27' ..., that no system uses."""
    taken = set(DialogueSystem.objects.values_list("alias", flat=True))
    letters = (f"System {letter}" for letter in string.ascii_uppercase)
    numbers = (f"System {number}" for number in itertools.count(27))
    return next(alias for alias in itertools.chain(letters, numbers) if alias not in taken)
