"""The ``openai`` kind: an LLM agent that books in the same world as every other system.

Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, a proxy) plays the system,
through :mod:`evalsite.llm.client`. The model gets the booking tools ``search_flights``,
``search_trains``, ``search_hotels``, ``book`` and ``cancel``, which run against
the conversation's own world with the same checks and JSON as the booking API
(:mod:`liveeval.api`), so its bookings count for the task like anyone's. Each
message is answered by calling the model until it answers without a tool call,
at most ``max_tool_rounds`` times.

The dialogue itself is the conversation's history. The tool calls and results of
each turn are kept in the session state, keyed by the position of the user
message that led to them, and put back in place on later turns, so that the
model still knows the ids it found when the user says "yes, book it".

Configuration (``DialogueSystem.config``): ``model``, and either ``credential`` (one of
the operator's named credentials, :mod:`evalsite.llm.credentials`; the only choice the admin
pages accept) or ``base_url`` and ``api_key_env`` (from ``add_system``), and the other
settings of :class:`evalsite.llm.config.LLMConfig` (``temperature`` 0 and ``seed`` 42 by
default), plus ``system_prompt`` and ``max_tool_rounds``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.utils.translation import gettext_lazy as _

from evalsite.language import is_chinese
from evalsite.llm.answers import Message
from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMConfigError, LLMError
from liveeval.api.errors import ApiError
from liveeval.api.parameters import DOMAINS, MAX_NIGHTS, Params
from liveeval.api.reservations import book, cancel
from liveeval.api.search import search_flights, search_hotels, search_trains
from liveeval.booking.cities import CITIES
from liveeval.booking.offers import CABINS, ROOM_TYPES, TRAIN_SEATS, TRAIN_TYPES, World
from liveeval.systems.base import Reply, SystemContext, SystemUnavailable

DEFAULT_MAX_TOOL_ROUNDS = 5
TRACE_KEY = "tool_calls"

DEFAULT_SYSTEM_PROMPT = """\
You are the booking assistant of a travel service. You book flights, trains and hotels in the \
booking world with your tools, and you can do nothing else.

How you work:
- Answer in the language of the user's last message: 简体中文 for Chinese, English for English.
- Find out what you need: for a flight or a train, where from, where to and which day; for a \
hotel, the city, the check-in day and the number of nights. Ask for one missing thing at a time.
- Always search before you propose anything. Never invent flights, trains, hotels, prices, ids \
or booking references: use only what your tools return.
- Turn relative dates (明天, 后天, 周五, next Monday) into dates YYYY-MM-DD, counting from \
today's date given below. Times are HH:MM.
- Propose the option that fits best (its number or hotel name, times, class and price) and ask \
the user to confirm it. Book only after the user has said yes to that option.
- After booking, give the booking reference. To change a booking, book the new one first, then \
cancel the old one.
- If a tool returns an error, say what went wrong in plain words and offer the closest \
alternative.
- Be brief: one to three sentences."""

_STRING = {"type": "string"}
_DATE = {"type": "string", "description": "YYYY-MM-DD"}
_CLOCK = {"type": "string", "description": "HH:MM, inclusive"}
_CITY = {"type": "string", "description": "a city of the booking world, e.g. 北京 or Beijing"}
_PRICE = {"type": "integer", "minimum": 1, "description": "yuan"}


def _function(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


TRAVEL = {
    "from_city": _CITY,
    "to_city": _CITY,
    "date": _DATE,
    "depart_after": _CLOCK,
    "depart_before": _CLOCK,
    "max_price": {**_PRICE, "description": "yuan, for the requested class or the cheapest"},
}
TOOLS: list[dict[str, Any]] = [
    _function(
        "search_flights",
        "Flights on one day, by departure time, with each cabin's price and seats left.",
        {**TRAVEL, "cabin": {"type": "string", "enum": list(CABINS)}},
        ["from_city", "to_city", "date"],
    ),
    _function(
        "search_trains",
        "Trains on one day, by departure time, with each seat class's price and seats left. "
        "train_type K also finds Z and T trains.",
        {
            **TRAVEL,
            "seat": {"type": "string", "enum": list(TRAIN_SEATS)},
            "train_type": {"type": "string", "enum": list(TRAIN_TYPES)},
        },
        ["from_city", "to_city", "date"],
    ),
    _function(
        "search_hotels",
        "Hotels for a stay, most stars first; each room price is the mean nightly price.",
        {
            "city": _CITY,
            "check_in": _DATE,
            "nights": {"type": "integer", "minimum": 1, "maximum": MAX_NIGHTS},
            "min_stars": {"type": "integer", "minimum": 1, "maximum": 5},
            "max_price": {**_PRICE, "description": "yuan a night"},
            "room_type": {"type": "string", "enum": list(ROOM_TYPES)},
        },
        ["city", "check_in", "nights"],
    ),
    _function(
        "book",
        "Book one seat or room of a searched item; only after the user confirmed it. Returns "
        "the booking reference.",
        {
            "domain": {"type": "string", "enum": list(DOMAINS)},
            "item_id": {"type": "integer", "description": "the id from a search result"},
            "option": {"type": "string", "description": "the cabin, seat class or room type"},
            "check_in": {**_DATE, "description": "hotels only: YYYY-MM-DD"},
            "nights": {"type": "integer", "minimum": 1, "description": "hotels only"},
        },
        ["domain", "item_id", "option"],
    ),
    _function(
        "cancel",
        "Cancel one of this conversation's bookings and give its seat or room back.",
        {"reference": {**_STRING, "description": "the booking reference, e.g. FL-7K2M9Q"}},
        ["reference"],
    ),
]
TOOL_FUNCTIONS: dict[str, Callable[[World, Params], dict[str, object]]] = {
    "search_flights": search_flights,
    "search_trains": search_trains,
    "search_hotels": search_hotels,
    "book": book,
    "cancel": cancel,
}


@dataclass(frozen=True)
class AgentConfig:
    llm: LLMConfig
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> AgentConfig:
        """Read a system's configuration; raises LLMConfigError naming the key at fault."""
        settings = dict(config)
        prompt = settings.pop("system_prompt", DEFAULT_SYSTEM_PROMPT)
        if not isinstance(prompt, str) or not prompt.strip():
            raise LLMConfigError(f"system_prompt must be a non-empty string, not {prompt!r}")
        rounds = settings.pop("max_tool_rounds", DEFAULT_MAX_TOOL_ROUNDS)
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 20:
            raise LLMConfigError(
                f"max_tool_rounds must be a whole number from 1 to 20, not {rounds!r}"
            )
        return cls(LLMConfig.from_config(settings), prompt.strip(), rounds)


def situation(context: SystemContext) -> str:
    """What the model must know about this conversation, after any system prompt."""
    cities = ", ".join(f"{city.name} ({city.name_en})" for city in CITIES)
    language = "Chinese" if is_chinese(context.lang) else "English"
    return (
        f"Today is {context.today.isoformat()} ({context.today.strftime('%A')}). "
        f"The conversation started in {language}. The cities of the booking world: {cities}."
    )


def _history_with(context: SystemContext, user_text: str) -> tuple[list[dict[str, str]], int]:
    """The history including this message, and this message's position in it."""
    history = list(context.history)
    if not history or history[-1] != {"role": "user", "text": user_text}:
        history.append({"role": "user", "text": user_text})
    return history, len(history) - 1


def conversation(config: AgentConfig, context: SystemContext, user_text: str) -> list[Message]:
    """The chat messages for this turn: prompt, dialogue, and earlier turns' tool calls in place."""
    history, _ = _history_with(context, user_text)
    traces: dict[str, list[Message]] = context.state.get(TRACE_KEY, {})
    messages: list[Message] = [
        {"role": "system", "content": f"{config.system_prompt}\n\n{situation(context)}"}
    ]
    for index, entry in enumerate(history):
        if entry["role"] == "user":
            messages.append({"role": "user", "content": entry["text"]})
            messages.extend(traces.get(str(index), []))
        else:
            messages.append({"role": "assistant", "content": entry["text"]})
    return messages


def run_tool(world: World, call: Mapping[str, Any]) -> str:
    """One tool call against the world; refusals are returned to the model as JSON errors."""
    function = call["function"]
    tool = TOOL_FUNCTIONS.get(function["name"])
    try:
        if tool is None:
            raise ApiError("unknown_tool", f"there is no tool {function['name']!r}")
        try:
            arguments = json.loads(function["arguments"] or "{}")
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):
            raise ApiError("bad_arguments", "the arguments must be a JSON object")
        result = tool(world, arguments)
    except ApiError as error:
        result = error.as_json()
    return json.dumps(result, ensure_ascii=False)


class LLMAgent:
    """Answers through an OpenAI-compatible model; see the module's description."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings

    async def respond(self, context: SystemContext, user_text: str) -> Reply:
        try:
            config = AgentConfig.from_config(self.settings)
        except LLMConfigError as error:
            raise SystemUnavailable(f"the system's configuration is invalid: {error}") from None
        messages = conversation(config, context, user_text)
        trace: list[Message] = []
        purpose = f"liveeval agent, session {context.session_id}"
        async with LLMClient(config.llm, purpose=purpose) as llm:
            for rounds in range(config.max_tool_rounds + 1):
                try:
                    completion = await llm.chat([*messages, *trace], tools=TOOLS)
                except LLMError as error:
                    raise SystemUnavailable(f"the model failed: {error.reason}") from None
                if not completion.tool_calls:
                    return self._answer(context, user_text, trace, completion.content)
                if rounds == config.max_tool_rounds:
                    break
                trace.append(completion.message)
                for call in completion.tool_calls:
                    trace.append(
                        {
                            "role": "tool",
                            "tool_call_id": call["id"],
                            "content": await self._run(context.world, call),
                        }
                    )
        raise SystemUnavailable(
            f"the model still called tools after {config.max_tool_rounds} rounds",
            _("The system failed to answer."),
        )

    @staticmethod
    async def _run(world: World, call: Mapping[str, Any]) -> str:
        try:
            return await sync_to_async(run_tool)(world, call)
        except Exception as error:
            raise SystemUnavailable(
                f"the tool {call['function']['name']} failed: {error!r}",
                _("The system failed to answer."),
            ) from error

    @staticmethod
    def _answer(context: SystemContext, user_text: str, trace: list[Message], text: str) -> Reply:
        if not text.strip():
            raise SystemUnavailable("the model answered with no text")
        if trace:
            _, index = _history_with(context, user_text)
            context.state = {
                **context.state,
                TRACE_KEY: {**context.state.get(TRACE_KEY, {}), str(index): trace},
            }
        return Reply(text.strip())


def openai_adapter(config: dict[str, Any]) -> LLMAgent:
    return LLMAgent(config)
