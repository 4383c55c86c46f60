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
- **Embeddings.** :meth:`LLMClient.embed` asks the endpoint's ``/embeddings`` for one
  vector per text, with the same retries, record and cache.
- **Structured answers.** :meth:`LLMClient.complete_json` parses and validates a
  JSON answer; a malformed one is asked for once more, and a second malformed one
  is returned as an error together with the raw text.

One :class:`LLMClient` belongs to one event loop: make it, use it and close it in
the same ``async`` function (``async with LLMClient(config) as llm: ...``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from asgiref.sync import sync_to_async

from evalsite.llm.answers import Completion, Embeddings, JSONAnswer, Message, validated
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMError
from evalsite.llm.limits import endpoint_limit, wait_before
from evalsite.llm.record import (
    embeddings_from_cache,
    from_cache,
    mark_invalid,
    record_call,
    request_hash,
)
from evalsite.models import LLMCall

if TYPE_CHECKING:
    import openai

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


def sdk() -> Any:
    """The ``openai`` SDK, imported when a call is first made: it takes a third of a second to
    import, which every process (the web server, each job worker, each command) would otherwise
    pay at start-up."""
    import openai

    return openai


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
            hit = await sync_to_async(from_cache)(self.config, self.purpose, digest, body)
            if hit is not None:
                return hit
        started = time.monotonic()
        try:
            response, attempts = await self._send(self._client().chat.completions.create, body)
            message, prompt_tokens, completion_tokens = _read(response, attempts)
        except LLMError as error:
            await sync_to_async(record_call)(
                self.config,
                self.purpose,
                digest,
                body,
                status=LLMCall.Status.ERROR,
                error=error.reason,
                attempts=error.attempts,
                started=started,
            )
            raise
        cost = self.config.cost(prompt_tokens, completion_tokens)
        call = await sync_to_async(record_call)(
            self.config,
            self.purpose,
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

    async def embed(self, texts: Sequence[str]) -> Embeddings:
        """One embedding per text, in order, from the cache when allowed; raises LLMError."""
        body: dict[str, Any] = {
            "model": self.config.model,
            "input": list(texts),
            "encoding_format": "float",
        }
        digest = request_hash(self.config.base_url, body)
        if self.config.cache:
            hit = await sync_to_async(embeddings_from_cache)(
                self.config, self.purpose, digest, body
            )
            if hit is not None:
                return hit
        started = time.monotonic()
        try:
            response, attempts = await self._send(self._client().embeddings.create, body)
            vectors, prompt_tokens = _read_embeddings(response, len(texts), attempts)
        except LLMError as error:
            await sync_to_async(record_call)(
                self.config,
                self.purpose,
                digest,
                body,
                status=LLMCall.Status.ERROR,
                error=error.reason,
                attempts=error.attempts,
                started=started,
            )
            raise
        cost = self.config.cost(prompt_tokens, 0)
        call = await sync_to_async(record_call)(
            self.config,
            self.purpose,
            digest,
            body,
            status=LLMCall.Status.OK,
            response={"embeddings": vectors},
            prompt_tokens=prompt_tokens,
            cost=cost,
            attempts=attempts,
            started=started,
        )
        return Embeddings(vectors, prompt_tokens, cost, False, call.pk)

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
        value, problem = validated(first.content, validate)
        if not problem:
            return JSONAnswer(value, completions=(first,))
        await sync_to_async(mark_invalid)(first.call_id, problem)
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
        value, problem = validated(second.content, validate)
        if not problem:
            return JSONAnswer(value, completions=(first, second))
        await sync_to_async(mark_invalid)(second.call_id, problem)
        return JSONAnswer(None, error=problem, raw=second.content, completions=(first, second))

    def _client(self) -> openai.AsyncOpenAI:
        if self._sdk is None:
            self._sdk = sdk().AsyncOpenAI(
                base_url=self.config.base_url,
                api_key=self.config.api_key(),
                max_retries=0,
                timeout=self.config.timeout,
            )
        return self._sdk

    async def _send(
        self, create: Callable[..., Awaitable[Any]], body: dict[str, Any]
    ) -> tuple[Any, int]:
        limit = endpoint_limit(self.config.base_url, self.config.concurrency)
        openai = sdk()
        retryable = (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError)
        for attempt in range(1, self.config.max_attempts + 1):
            try:
                # The limit is held per attempt, not across the wait before a retry.
                async with limit:
                    return await create(**body), attempt
            # The endpoint's own words may echo the key: LLMError cuts it out of them, and the
            # error they came in is not chained, so that no traceback shows them whole.
            except retryable as error:
                if attempt == self.config.max_attempts:
                    raise LLMError(
                        f"{_describe(error)}, after {attempt} attempt(s)",
                        status=_status(error),
                        attempts=attempt,
                        key_env=self.config.api_key_env,
                    ) from None
                await self.sleep(wait_before(self.config, attempt, error))
            except openai.OpenAIError as error:
                raise LLMError(
                    _describe(error),
                    status=_status(error),
                    attempts=attempt,
                    key_env=self.config.api_key_env,
                ) from None
            except ValueError as error:
                # The SDK lets a body that is not JSON (a proxy's error page) through as is.
                raise LLMError(
                    f"the answer is not JSON: {error}",
                    attempts=attempt,
                    key_env=self.config.api_key_env,
                ) from None
        raise AssertionError("max_attempts is at least 1")


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


def _read_embeddings(response: Any, expected: int, attempts: int) -> tuple[list[list[float]], int]:
    """The vectors of an embeddings answer, in the order of the texts, and its token usage."""
    data = getattr(response, "data", None)
    if not isinstance(data, list) or len(data) != expected:
        raise LLMError(f"the answer does not hold {expected} embedding(s)", attempts=attempts)
    ordered = sorted(data, key=lambda item: int(item.index))
    vectors = [[float(x) for x in item.embedding] for item in ordered]
    usage = getattr(response, "usage", None)
    return vectors, int(getattr(usage, "prompt_tokens", 0) or 0)


def _status(error: Exception) -> int | None:
    return error.status_code if isinstance(error, sdk().APIStatusError) else None


def _describe(error: Exception) -> str:
    openai = sdk()
    if isinstance(error, openai.APITimeoutError):
        return "the request timed out"
    if isinstance(error, openai.APIConnectionError):
        return f"cannot connect: {error}"
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}: {error.message}"
    return f"{error.__class__.__name__}: {error}"
