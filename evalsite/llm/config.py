"""Where an LLM is, how to call it and what its tokens cost.

:class:`LLMConfig` reads a configuration such as a system's ``config`` JSON or a job's
``llm`` parameters and names the key at fault when one cannot work
(:class:`~evalsite.llm.errors.LLMConfigError`). Prices are per 1,000 tokens, in any one
currency; a cost is kept to six places.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from evalsite.endpoint_url import EndpointURLError, endpoint_url
from evalsite.llm.credentials import credential
from evalsite.llm.errors import LLMConfigError, LLMError

THOUSAND = Decimal(1000)
COST_PLACES = Decimal("0.000001")


@dataclass(frozen=True)
class LLMConfig:
    """Where an LLM is and how to call it. Prices are per 1,000 tokens, in any one currency."""

    base_url: str
    model: str
    api_key_env: str = ""
    credential: str = ""
    temperature: float = 0.0
    seed: int | None = 42
    max_tokens: int | None = None
    timeout: float = 60.0
    max_attempts: int = 4
    backoff: float = 1.0
    max_wait: float = 60.0
    concurrency: int = 4
    price_per_1k_prompt: Decimal | None = None
    price_per_1k_completion: Decimal | None = None
    cache: bool = False
    json_mode: bool = True

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LLMConfig:
        """Read a configuration such as a system's ``config`` JSON; raises LLMConfigError."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(config) - known)
        if unknown:
            raise LLMConfigError(
                f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        values: dict[str, Any] = {"model": _word(config.get("model"), "model")}
        if "credential" in config:
            values.update(_from_credential(config))
        else:
            values["base_url"] = _url(config.get("base_url"))
            if config.get("api_key_env"):
                values["api_key_env"] = _env_name(config["api_key_env"])
        readers: dict[str, Callable[[object, str], Any]] = {
            "temperature": lambda value, key: _number(value, key, 0.0, 2.0),
            "seed": lambda value, key: None if value is None else _whole(value, key, 0),
            "max_tokens": lambda value, key: None if value is None else _whole(value, key, 1),
            "timeout": lambda value, key: _number(value, key, 0.001, 3600.0),
            "max_attempts": lambda value, key: _whole(value, key, 1, 20),
            "backoff": lambda value, key: _number(value, key, 0.0, 600.0),
            "max_wait": lambda value, key: _number(value, key, 0.0, 3600.0),
            "concurrency": lambda value, key: _whole(value, key, 1, 1000),
            "price_per_1k_prompt": _price,
            "price_per_1k_completion": _price,
            "cache": _flag,
            "json_mode": _flag,
        }
        for key, read in readers.items():
            if key in config:
                values[key] = read(config[key], key)
        prices = [values.get("price_per_1k_prompt"), values.get("price_per_1k_completion")]
        if (prices[0] is None) != (prices[1] is None):
            raise LLMConfigError(
                "give both price_per_1k_prompt and price_per_1k_completion, or neither"
            )
        return cls(**values)

    def api_key(self) -> str:
        """The key from the environment; local servers that need none get a placeholder."""
        if not self.api_key_env:
            return "no-key-needed"
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise LLMError(
                f"the environment variable {self.api_key_env} holding the API key is unset"
            )
        return key

    def cost(self, prompt_tokens: int, completion_tokens: int) -> Decimal | None:
        if self.price_per_1k_prompt is None or self.price_per_1k_completion is None:
            return None
        total = (
            prompt_tokens * self.price_per_1k_prompt
            + completion_tokens * self.price_per_1k_completion
        ) / THOUSAND
        return total.quantize(COST_PLACES)


def _url(value: object) -> str:
    try:
        return endpoint_url(value).rstrip("/")
    except EndpointURLError as error:
        raise LLMConfigError(f"base_url must be an http(s) URL, not {value!r}: {error}") from None


def _from_credential(config: Mapping[str, Any]) -> dict[str, str]:
    """The base URL and key variable of the named credential the configuration chooses."""
    clashing = sorted({"base_url", "api_key_env"} & set(config))
    if clashing:
        raise LLMConfigError(
            f"a credential brings its own base URL and key; remove {', '.join(clashing)}"
        )
    name = config["credential"]
    if not isinstance(name, str):
        raise LLMConfigError(f"credential must be a credential's name, not {name!r}")
    chosen = credential(name)
    return {"credential": chosen.name, "base_url": chosen.base_url, "api_key_env": chosen.env_var}


def _word(value: object, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise LLMConfigError(f"{key} must be a non-empty string, not {value!r}")
    return value.strip()


def _env_name(value: object) -> str:
    if not isinstance(value, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", value):
        raise LLMConfigError(f"api_key_env must name an environment variable, not {value!r}")
    return value


def _number(value: object, key: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise LLMConfigError(f"{key} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def _whole(value: object, key: str, low: int, high: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise LLMConfigError(f"{key} must be a whole number {bounds}, not {value!r}")
    return value


def _price(value: object, key: str) -> Decimal:
    try:
        price = Decimal(str(value)) if not isinstance(value, bool) else Decimal("NaN")
    except InvalidOperation:
        price = Decimal("NaN")
    if not price.is_finite() or price < 0:
        raise LLMConfigError(f"{key} must be a price of at least 0, not {value!r}")
    return price


def _flag(value: object, key: str) -> bool:
    if not isinstance(value, bool):
        raise LLMConfigError(f"{key} must be true or false, not {value!r}")
    return value
