"""A strict, in-process fake of an OpenAI-compatible chat endpoint, shared by every LLM test.

The real ``AsyncOpenAI`` SDK talks HTTP to it on 127.0.0.1, so everything from the
request a client builds to the SDK's parsing of the answer runs as it would against
OpenAI, vLLM or Ollama, without the network.

**Strict.** Every request is checked: the path, the bearer key, the model, every
message's role and fields, the tool definitions, ``tool_choice``,
``response_format`` (``json_object`` needs the word JSON in the messages, as
OpenAI requires), and that every tool message answers a tool call that this
server issued and that an earlier assistant message of the same request made,
each exactly once, before the dialogue goes on. A request that breaks a rule is
answered 400 and the rule is recorded in ``server.violations``; the
``fake_openai`` fixture fails the test at teardown while any are left, or while
scripted answers are left unused. A test about a violation takes it with
``server.take_violations()``.

**Scripted.** ``server.script(answer, ...)`` queues one answer per request, in
order; a request with nothing left to answer is a violation.

- ``reply("text", usage=(prompt, completion))``: an assistant message;
- ``tool_calls(("search_flights", {...}), ...)``: tool calls, with ids the server
  issues (arguments may be a raw string, to stand for a model's malformed JSON);
- ``status(429, retry_after="2")``, ``status(500)``: an error answer;
- ``broken_body()``: HTTP 200 whose body is not JSON;
- ``slow(seconds, answer)``: the answer after a delay;
- a callable ``(request_body) -> answer``, to answer from the request, e.g. to
  book the id that the previous tool result holds (see ``tool_result``).

**Embeddings.** ``POST /v1/embeddings`` needs no script: each input text gets
``testing.embeddings.deterministic_embedding``, and the requests are checked too.

``server.requests`` holds every request body received, ``server.max_in_flight``
the most requests it was answering at once.

Use it from any test module (importing the fixture function makes the
``fake_openai`` fixture available there)::

    from tests.fake_openai import FakeOpenAI, fake_openai_server, reply  # noqa: F401

    def test_it_answers(fake_openai: FakeOpenAI) -> None:
        fake_openai.script(reply("hello"))
        config = LLMConfig(base_url=fake_openai.base_url, model=fake_openai.model)
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from testing.embeddings import deterministic_embedding

MODEL = "fake-model"
PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ROLES = {"system", "developer", "user", "assistant", "tool"}
MESSAGE_KEYS = {
    "system": {"role", "content", "name"},
    "developer": {"role", "content", "name"},
    "user": {"role", "content", "name"},
    "assistant": {"role", "content", "name", "tool_calls", "refusal"},
    "tool": {"role", "content", "tool_call_id"},
}
REQUEST_KEYS = {
    "model",
    "messages",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "temperature",
    "top_p",
    "seed",
    "response_format",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "n",
    "user",
    "stream",
    "frequency_penalty",
    "presence_penalty",
}


@dataclass(frozen=True)
class Answer:
    """One scripted answer: an assistant message or tool calls, an error status, or junk."""

    status: int = 200
    content: str | None = None
    calls: tuple[tuple[str, dict[str, Any] | str], ...] = ()
    usage: tuple[int, int] = (10, 5)
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: bytes | None = None
    delay: float = 0.0


Scripted = Answer | Callable[[dict[str, Any]], Answer]


def reply(content: str, *, usage: tuple[int, int] = (10, 5)) -> Answer:
    return Answer(content=content, usage=usage)


def tool_calls(
    *calls: tuple[str, dict[str, Any] | str], usage: tuple[int, int] = (10, 5)
) -> Answer:
    return Answer(calls=tuple(calls), usage=usage)


def status(code: int, *, retry_after: str | None = None, message: str = "") -> Answer:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    body = {"error": {"message": message or f"scripted HTTP {code}", "type": "fake_error"}}
    return Answer(status=code, headers=headers, raw_body=json.dumps(body).encode())


def broken_body() -> Answer:
    return Answer(raw_body=b"<html>upstream proxy error</html>")


def slow(seconds: float, answer: Answer) -> Answer:
    return replace(answer, delay=seconds)


def tool_result(body: Mapping[str, Any], name: str) -> Any:
    """The parsed content of the last tool message answering a call of tool ``name``."""
    names = {
        call["id"]: call["function"]["name"]
        for message in body["messages"]
        for call in message.get("tool_calls") or []
    }
    for message in reversed(body["messages"]):
        if message["role"] == "tool" and names.get(message["tool_call_id"]) == name:
            return json.loads(message["content"])
    raise AssertionError(f"the request holds no result of {name}")


# Each request is answered in a thread of its own; this says which client port sent it.
_answering = threading.local()


def client_port() -> int:
    """The client's port of the request this thread is answering (for a scripted callable)."""
    return int(_answering.client_port)


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up on a slow answer has closed its socket; that is expected.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeOpenAI:
    """The fake endpoint; see the module's description."""

    def __init__(self, models: tuple[str, ...] = (MODEL,), port: int = 0) -> None:
        self.models = models
        self.model = models[0]
        self.requests: list[dict[str, Any]] = []
        self.violations: list[str] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._script: deque[Scripted] = deque()
        self._issued: set[str] = set()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = QuietServer(("127.0.0.1", port), self._handler())
        self.base_url = f"http://127.0.0.1:{self._server.server_port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def script(self, *answers: Scripted) -> None:
        with self._lock:
            self._script.extend(answers)

    @property
    def unused(self) -> int:
        with self._lock:
            return len(self._script)

    def take_violations(self) -> list[str]:
        with self._lock:
            taken, self.violations = self.violations, []
        return taken

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake._answer(self)

            def do_GET(self) -> None:
                fake._refuse(self, 404, f"GET {self.path}: only POST {PATH} is served")

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read requests and violations, not an access log."""

        return Handler

    def _refuse(self, handler: BaseHTTPRequestHandler, code: int, problem: str) -> None:
        with self._lock:
            self.violations.append(problem)
        body = {"error": {"message": problem, "type": "invalid_request_error"}}
        self._send(handler, code, json.dumps(body).encode(), {})

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler, code: int, body: bytes, headers: Mapping[str, str]
    ) -> None:
        handler.send_response(code)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        _answering.client_port = int(handler.client_address[1])
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            self._answer_one(handler)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _answer_one(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        if len(raw) < length:
            # The client went away while sending (a worker killed mid-request): no request came.
            handler.close_connection = True
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._refuse(handler, 400, "the request body is not JSON")
            return
        with self._lock:
            self.requests.append(body)
            issued = set(self._issued)
        if handler.path == EMBEDDINGS_PATH:
            self._embed(handler, body)
            return
        problems = request_problems(handler.path, dict(handler.headers), body, self.models, issued)
        if problems:
            self._refuse(handler, 400, "; ".join(problems))
            return
        with self._lock:
            scripted = self._script.popleft() if self._script else None
        if scripted is None:
            self._refuse(handler, 500, "a request arrived with no scripted answer left")
            return
        try:
            answer = scripted(body) if callable(scripted) else scripted
        except Exception as error:
            self._refuse(handler, 500, f"the scripted answer failed: {error!r}")
            return
        if answer.delay:
            self._closing.wait(answer.delay)
        if answer.raw_body is not None:
            self._send(handler, answer.status, answer.raw_body, answer.headers)
            return
        offered = {tool["function"]["name"] for tool in body.get("tools") or []}
        unknown = [name for name, _ in answer.calls if name not in offered]
        if unknown:
            self._refuse(
                handler, 400, f"the script calls tools the request does not offer: {unknown}"
            )
            return
        self._send(handler, 200, self._completion(body, answer), answer.headers)

    def _embed(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        problems = embedding_problems(dict(handler.headers), body, self.models)
        if problems:
            self._refuse(handler, 400, "; ".join(problems))
            return
        texts = [body["input"]] if isinstance(body["input"], str) else body["input"]
        data = [
            {"object": "embedding", "index": index, "embedding": deterministic_embedding(text)}
            for index, text in enumerate(texts)
        ]
        tokens = sum(len(text.split()) for text in texts)
        answer = {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        self._send(handler, 200, json.dumps(answer).encode(), {})

    def _completion(self, body: Mapping[str, Any], answer: Answer) -> bytes:
        message: dict[str, Any] = {"role": "assistant", "content": answer.content}
        if answer.calls:
            calls = []
            for name, arguments in answer.calls:
                call_id = f"call_{next(self._ids)}"
                with self._lock:
                    self._issued.add(call_id)
                text = arguments if isinstance(arguments, str) else json.dumps(arguments)
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": text},
                    }
                )
            message["tool_calls"] = calls
        prompt, completion = answer.usage
        return json.dumps(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if answer.calls else "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            },
            ensure_ascii=False,
        ).encode()


def request_problems(
    path: str,
    headers: Mapping[str, str],
    body: object,
    models: tuple[str, ...],
    issued: set[str],
) -> list[str]:
    """Every way a chat completion request breaks the OpenAI schema; empty when it is valid."""
    problems: list[str] = []
    if path != PATH:
        problems.append(f"POST {path}: only {PATH} is served")
    authorization = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
    if not re.match(r"^Bearer \S+$", authorization):
        problems.append("no 'Authorization: Bearer <key>' header")
    if not isinstance(body, dict):
        return [*problems, "the body is not a JSON object"]
    unknown = sorted(set(body) - REQUEST_KEYS)
    if unknown:
        problems.append(f"unknown request fields {unknown}")
    if body.get("model") not in models:
        problems.append(f"model {body.get('model')!r} is not served; models: {list(models)}")
    if body.get("stream"):
        problems.append("streaming is not expected")
    temperature = body.get("temperature", 1)
    if isinstance(temperature, bool) or not isinstance(temperature, int | float):
        problems.append(f"temperature must be a number, not {temperature!r}")
    elif not 0 <= temperature <= 2:
        problems.append(f"temperature {temperature} is outside 0..2")
    for key in ("seed", "max_tokens", "max_completion_tokens"):
        if key in body and (isinstance(body[key], bool) or not isinstance(body[key], int)):
            problems.append(f"{key} must be an integer, not {body[key]!r}")
    tools = _tool_names(body.get("tools"), problems)
    _check_tool_choice(body.get("tool_choice"), tools, "tool_choice" in body, problems)
    _check_messages(body.get("messages"), issued, problems)
    _check_response_format(body, problems)
    return problems


def embedding_problems(
    headers: Mapping[str, str], body: object, models: tuple[str, ...]
) -> list[str]:
    """Every way an embeddings request breaks the OpenAI schema; empty when it is valid."""
    problems: list[str] = []
    authorization = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
    if not re.match(r"^Bearer \S+$", authorization):
        problems.append("no 'Authorization: Bearer <key>' header")
    if not isinstance(body, dict):
        return [*problems, "the body is not a JSON object"]
    unknown = sorted(set(body) - {"model", "input", "encoding_format", "dimensions", "user"})
    if unknown:
        problems.append(f"unknown embeddings request fields {unknown}")
    if body.get("model") not in models:
        problems.append(f"model {body.get('model')!r} is not served; models: {list(models)}")
    texts = body.get("input")
    if isinstance(texts, str):
        texts = [texts]
    if (
        not isinstance(texts, list)
        or not texts
        or not all(isinstance(text, str) and text for text in texts)
    ):
        problems.append("input must be a non-empty text or list of non-empty texts")
    if body.get("encoding_format", "float") != "float":
        problems.append("only encoding_format float is served")
    return problems


def _tool_names(tools: object, problems: list[str]) -> set[str]:
    if tools is None:
        return set()
    if not isinstance(tools, list) or not tools:
        problems.append("tools must be a non-empty list")
        return set()
    names: set[str] = set()
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        function = tool.get("function") if isinstance(tool, dict) else None
        if (
            not isinstance(tool, dict)
            or tool.get("type") != "function"
            or not isinstance(function, dict)
        ):
            problems.append(f"{where} must be {{'type': 'function', 'function': {{...}}}}")
            continue
        name = function.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            problems.append(f"{where}: bad function name {name!r}")
        elif name in names:
            problems.append(f"{where}: the name {name!r} is defined twice")
        else:
            names.add(name)
        if "description" in function and not isinstance(function["description"], str):
            problems.append(f"{where}: description must be a string")
        _check_parameters(function.get("parameters"), where, problems)
    return names


def _check_parameters(schema: object, where: str, problems: list[str]) -> None:
    if schema is None:
        return
    if not isinstance(schema, dict) or schema.get("type") != "object":
        problems.append(f"{where}: parameters must be a JSON schema of type 'object'")
        return
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        problems.append(f"{where}: properties must be an object")
        return
    for name, spec in properties.items():
        if not isinstance(spec, dict) or not ("type" in spec or "enum" in spec or "anyOf" in spec):
            problems.append(f"{where}: property {name!r} has no type")
    required = schema.get("required", [])
    if not isinstance(required, list) or not set(required) <= set(properties):
        problems.append(f"{where}: required names parameters that are not properties")


def _check_tool_choice(choice: object, tools: set[str], given: bool, problems: list[str]) -> None:
    if not given:
        return
    if not tools:
        problems.append("tool_choice is given without tools")
    elif isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        if choice.get("type") != "function" or name not in tools:
            problems.append(f"tool_choice names no offered tool: {choice!r}")
    elif choice not in {"none", "auto", "required"}:
        problems.append(f"tool_choice must be none, auto, required or a function, not {choice!r}")


def _check_messages(messages: object, issued: set[str], problems: list[str]) -> None:
    if not isinstance(messages, list) or not messages:
        problems.append("messages must be a non-empty list")
        return
    made: set[str] = set()
    pending: list[str] = []
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ROLES:
            problems.append(f"{where}: unknown role {role!r}")
            continue
        assert isinstance(message, dict)
        extra = sorted(set(message) - MESSAGE_KEYS[role])
        if extra:
            problems.append(f"{where}: fields {extra} are not allowed for role {role}")
        if pending and role != "tool":
            problems.append(
                f"{where}: tool calls {pending} are not answered before a {role} message"
            )
            pending = []
        content = message.get("content")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in issued:
                problems.append(
                    f"{where}: tool_call_id {call_id!r} was never issued by this server"
                )
            elif call_id not in made:
                problems.append(f"{where}: tool_call_id {call_id!r} answers no earlier tool call")
            elif call_id not in pending:
                problems.append(f"{where}: tool call {call_id!r} is answered twice")
            else:
                pending.remove(call_id)
            if not isinstance(content, str):
                problems.append(f"{where}: a tool message's content must be a string")
        elif role == "assistant":
            calls = message.get("tool_calls")
            if calls is not None:
                pending = _check_calls(calls, where, issued, made, problems)
            if not isinstance(content, str) and not (content is None and calls):
                problems.append(f"{where}: an assistant message needs content or tool calls")
        elif role == "user" and isinstance(content, list):
            if not all(isinstance(part, dict) and "type" in part for part in content):
                problems.append(f"{where}: content parts must be objects with a type")
        elif not isinstance(content, str) or not content:
            problems.append(f"{where}: a {role} message needs non-empty text content")
    if pending:
        problems.append(f"tool calls {pending} are never answered")


def _check_calls(
    calls: object, where: str, issued: set[str], made: set[str], problems: list[str]
) -> list[str]:
    if not isinstance(calls, list) or not calls:
        problems.append(f"{where}: tool_calls must be a non-empty list")
        return []
    pending = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        call_id = call.get("id") if isinstance(call, dict) else None
        if not isinstance(function, dict) or call.get("type") != "function":
            problems.append(
                f"{where}: a tool call must be {{'id', 'type': 'function', 'function'}}"
            )
            continue
        if call_id not in issued:
            problems.append(f"{where}: tool call id {call_id!r} was never issued by this server")
            continue
        if not isinstance(function.get("name"), str) or not isinstance(
            function.get("arguments"), str
        ):
            problems.append(f"{where}: a tool call's function needs a name and string arguments")
        made.add(call_id)
        pending.append(call_id)
    return pending


def _check_response_format(body: Mapping[str, Any], problems: list[str]) -> None:
    response_format = body.get("response_format")
    if response_format is None:
        return
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind not in {"text", "json_object", "json_schema"}:
        problems.append(f"response_format type must be text, json_object or json_schema: {kind!r}")
    elif kind == "json_schema":
        spec = response_format.get("json_schema")
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            problems.append("response_format json_schema needs a name and a schema")
    elif kind == "json_object":
        text = json.dumps(body.get("messages"), ensure_ascii=False).lower()
        if "json" not in text:
            problems.append("response_format json_object needs the word JSON in the messages")


@pytest.fixture(name="fake_openai")
def fake_openai_server() -> Iterator[FakeOpenAI]:
    """A started fake endpoint; the test fails if a request broke the schema or answers are left."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
    assert not server.violations, "requests broke the OpenAI schema:\n" + "\n".join(
        server.violations
    )
    assert not server.unused, f"{server.unused} scripted answer(s) were never asked for"
