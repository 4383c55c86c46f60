"""The one client for OpenAI-compatible chat endpoints: LLM agents, evaluators and simulators.

It speaks through the official ``openai`` SDK (``AsyncOpenAI`` with a
``base_url``), so OpenAI, vLLM, Ollama and compatible proxies all work, and adds
what a research tool needs around it:

- **Retries.** A 429, a 5xx, a timeout or a lost connection is retried with
  exponential backoff (``backoff``, doubled each time, at most ``max_wait``
  seconds), waiting what the server's ``Retry-After`` asks for instead when it
  sends one. The SDK's own retries are turned off, so that this is the only
  policy that runs.
- **A concurrency limit** per endpoint and event loop, and a timeout per attempt.
- **A record of every call** (:class:`evalsite.models.LLMCall`): the exact
  request, the answer, the token usage, and the cost when prices are configured.
- **An optional cache.** With ``cache`` on, a request identical to one already
  answered (same endpoint, model, messages, tools, temperature, seed, response
  format, token limit) is answered from the record without calling the endpoint.
- **Structured answers.** :meth:`LLMClient.complete_json` parses and validates a
  JSON answer; a malformed one is asked for once more, and a second malformed one
  is returned as an error together with the raw text.

One :class:`LLMClient` belongs to one event loop: make it, use it and close it in
the same ``async`` function (``async with LLMClient(config) as llm: ...``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import hashlib
import json
import os
import re
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Generic, TypeVar

import openai
from asgiref.sync import sync_to_async

from evalsite.models import LLMCall

T = TypeVar("T")
Message = dict[str, Any]
Sleep = Callable[[float], Awaitable[None]]

RETRYABLE = (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError)
FENCED = re.compile(r"^```[a-zA-Z]*\s*\n(.*)\n\s*```$", re.DOTALL)
THOUSAND = Decimal(1000)
COST_PLACES = Decimal("0.000001")


class LLMError(Exception):
    """No usable answer: the endpoint kept failing, refused the request, or is misconfigured."""

    def __init__(self, reason: str, *, status: int | None = None, attempts: int = 1) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.attempts = attempts


class LLMConfigError(ValueError):
    """An LLM configuration that cannot work, naming the key at fault."""


@dataclass(frozen=True)
class LLMConfig:
    """Where an LLM is and how to call it. Prices are per 1,000 tokens, in any one currency."""

    base_url: str
    model: str
    api_key_env: str = ""
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
        values: dict[str, Any] = {
            "base_url": _url(config.get("base_url")),
            "model": _word(config.get("model"), "model"),
        }
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
    if not isinstance(value, str) or not re.match(r"^https?://[^/\s]+", value.strip()):
        raise LLMConfigError(f"base_url must be an http(s) URL, not {value!r}")
    return value.strip().rstrip("/")


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


@dataclass(frozen=True)
class Completion:
    """The assistant's message, as an OpenAI chat message dict, and what the call cost."""

    message: Message
    prompt_tokens: int
    completion_tokens: int
    cost: Decimal | None
    cached: bool
    call_id: int

    @property
    def content(self) -> str:
        return str(self.message.get("content") or "")

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.message.get("tool_calls") or [])


@dataclass(frozen=True)
class JSONAnswer(Generic[T]):
    """A validated structured answer, or the reason there is none and the raw text received."""

    value: T | None
    error: str = ""
    raw: str = ""
    completions: tuple[Completion, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not self.error


_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)
_limits_lock = threading.Lock()


def endpoint_limit(base_url: str, size: int) -> asyncio.Semaphore:
    """The semaphore shared by every client of ``base_url`` in the running event loop.

    The first client to ask for it sets its size. A semaphore belongs to one event
    loop, so each loop (a server's, or the one a management command runs) has its own.
    """
    loop = asyncio.get_running_loop()
    with _limits_lock:
        per_loop = _limits.setdefault(loop, {})
        if base_url not in per_loop:
            per_loop[base_url] = asyncio.Semaphore(size)
        return per_loop[base_url]


def retry_after(headers: Mapping[str, str], now: dt.datetime | None = None) -> float | None:
    """Seconds to wait from ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms``."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - (now or dt.datetime.now(dt.UTC))).total_seconds())


def request_hash(base_url: str, body: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {"base_url": base_url, **body}, sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def parse_json(text: str) -> Any:
    """The JSON value of an answer, which may sit in one fenced code block."""
    stripped = text.strip()
    fenced = FENCED.match(stripped)
    return json.loads(fenced.group(1) if fenced else stripped)


class LLMClient:
    """Calls one OpenAI-compatible model; see the module's description."""

    def __init__(
        self, config: LLMConfig, *, purpose: str = "", sleep: Sleep = asyncio.sleep
    ) -> None:
        self.config = config
        self.purpose = purpose
        self.sleep = sleep
        self._sdk: openai.AsyncOpenAI | None = None

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._sdk is not None:
            await self._sdk.close()
            self._sdk = None

    def request_body(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The exact request sent, which is also what the cache is keyed by."""
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": [dict(message) for message in messages],
            "temperature": self.config.temperature,
        }
        if self.config.seed is not None:
            body["seed"] = self.config.seed
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        if tools:
            body["tools"] = [dict(tool) for tool in tools]
        if response_format is not None:
            body["response_format"] = dict(response_format)
        return body

    async def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> Completion:
        """One answer of the model, from the cache when allowed; raises LLMError."""
        body = self.request_body(messages, tools=tools, response_format=response_format)
        digest = request_hash(self.config.base_url, body)
        if self.config.cache:
            hit = await sync_to_async(self._from_cache)(digest, body)
            if hit is not None:
                return hit
        started = time.monotonic()
        try:
            response, attempts = await self._send(body)
            message, prompt_tokens, completion_tokens = _read(response, attempts)
        except LLMError as error:
            await sync_to_async(self._record)(
                digest,
                body,
                status=LLMCall.Status.ERROR,
                error=error.reason,
                attempts=error.attempts,
                started=started,
            )
            raise
        cost = self.config.cost(prompt_tokens, completion_tokens)
        call = await sync_to_async(self._record)(
            digest,
            body,
            status=LLMCall.Status.OK,
            response=message,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost=cost,
            attempts=attempts,
            started=started,
        )
        return Completion(message, prompt_tokens, completion_tokens, cost, False, call.pk)

    async def complete_json(
        self, messages: Sequence[Message], validate: Callable[[Any], T]
    ) -> JSONAnswer[T]:
        """A JSON answer that ``validate`` accepts (it returns the value or raises ValueError).

        A malformed answer is shown to the model with what is wrong, once; if the
        second answer is malformed too, the result holds the error and its raw text.
        Both malformed answers are recorded as ``invalid`` and never served from the cache.
        """
        response_format = {"type": "json_object"} if self.config.json_mode else None
        first = await self.chat(messages, response_format=response_format)
        value, problem = _validated(first.content, validate)
        if not problem:
            return JSONAnswer(value, completions=(first,))
        await sync_to_async(self._mark_invalid)(first.call_id, problem)
        again = [
            *messages,
            {"role": "assistant", "content": first.content},
            {
                "role": "user",
                "content": f"That answer could not be used: {problem}. Answer again with only "
                "the JSON asked for, and nothing else.",
            },
        ]
        second = await self.chat(again, response_format=response_format)
        value, problem = _validated(second.content, validate)
        if not problem:
            return JSONAnswer(value, completions=(first, second))
        await sync_to_async(self._mark_invalid)(second.call_id, problem)
        return JSONAnswer(None, error=problem, raw=second.content, completions=(first, second))

    def wait_before(self, attempt: int, error: Exception) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1 for the first)."""
        asked = None
        if isinstance(error, openai.APIStatusError):
            asked = retry_after(error.response.headers)
        wait = asked if asked is not None else self.config.backoff * 2 ** (attempt - 1)
        return min(wait, self.config.max_wait)

    def _client(self) -> openai.AsyncOpenAI:
        if self._sdk is None:
            self._sdk = openai.AsyncOpenAI(
                base_url=self.config.base_url,
                api_key=self.config.api_key(),
                max_retries=0,
                timeout=self.config.timeout,
            )
        return self._sdk

    async def _send(self, body: dict[str, Any]) -> tuple[Any, int]:
        client = self._client()
        limit = endpoint_limit(self.config.base_url, self.config.concurrency)
        for attempt in range(1, self.config.max_attempts + 1):
            try:
                # The limit is held per attempt, not across the wait before a retry.
                async with limit:
                    return await client.chat.completions.create(**body), attempt
            except RETRYABLE as error:
                if attempt == self.config.max_attempts:
                    raise LLMError(
                        f"{_describe(error)}, after {attempt} attempt(s)",
                        status=_status(error),
                        attempts=attempt,
                    ) from error
                await self.sleep(self.wait_before(attempt, error))
            except openai.OpenAIError as error:
                raise LLMError(_describe(error), status=_status(error), attempts=attempt) from error
            except ValueError as error:
                # The SDK lets a body that is not JSON (a proxy's error page) through as is.
                raise LLMError(f"the answer is not JSON: {error}", attempts=attempt) from error
        raise AssertionError("max_attempts is at least 1")

    def _from_cache(self, digest: str, body: dict[str, Any]) -> Completion | None:
        """The stored answer to an identical request, recorded again as a free, cached call."""
        stored = (
            LLMCall.objects.filter(request_hash=digest, status=LLMCall.Status.OK)
            .order_by("-id")
            .first()
        )
        if stored is None:
            return None
        call = LLMCall.objects.create(
            purpose=self.purpose,
            base_url=self.config.base_url,
            model=self.config.model,
            request_hash=digest,
            request=body,
            response=stored.response,
            status=LLMCall.Status.OK,
            cached=True,
            attempts=0,
            cost=self.config.cost(0, 0),
        )
        return Completion(stored.response, 0, 0, call.cost, True, call.pk)

    def _record(
        self,
        digest: str,
        body: dict[str, Any],
        *,
        status: str,
        started: float,
        attempts: int,
        response: Message | None = None,
        error: str = "",
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        cost: Decimal | None = None,
    ) -> LLMCall:
        return LLMCall.objects.create(
            purpose=self.purpose,
            base_url=self.config.base_url,
            model=self.config.model,
            request_hash=digest,
            request=body,
            response=response or {},
            status=status,
            error=error,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost=cost,
            attempts=attempts,
            latency_ms=int((time.monotonic() - started) * 1000),
        )

    @staticmethod
    def _mark_invalid(call_id: int, problem: str) -> None:
        LLMCall.objects.filter(pk=call_id).update(status=LLMCall.Status.INVALID, error=problem)


def _read(response: Any, attempts: int) -> tuple[Message, int, int]:
    """The assistant message of a chat completion and its token usage."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise LLMError("the answer is not a chat completion", attempts=attempts)
    answer = choices[0].message
    message: Message = {"role": "assistant", "content": answer.content}
    if answer.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.function.name, "arguments": call.function.arguments},
            }
            for call in answer.tool_calls
        ]
    usage = response.usage
    if usage is None:
        return message, 0, 0
    return message, int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)


def _validated(text: str, validate: Callable[[Any], T]) -> tuple[T | None, str]:
    try:
        data = parse_json(text)
    except ValueError as error:
        return None, f"the answer is not valid JSON ({error})"
    try:
        return validate(data), ""
    except (ValueError, TypeError, KeyError) as error:
        return None, f"the JSON does not fit: {error}"


def _status(error: Exception) -> int | None:
    return error.status_code if isinstance(error, openai.APIStatusError) else None


def _describe(error: Exception) -> str:
    if isinstance(error, openai.APITimeoutError):
        return "the request timed out"
    if isinstance(error, openai.APIConnectionError):
        return f"cannot connect: {error}"
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}: {error.message}"
    return f"{error.__class__.__name__}: {error}"
