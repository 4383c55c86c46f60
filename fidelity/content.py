"""What a prompt shows and what an answer says, as typed objects stored as JSON.

A `Prompt`'s ``content`` and an `Answer`'s ``payload`` are JSON objects; these dataclasses are
the one way to read and write them. Each task has one content type, and each answer one payload
type (``kind``): mentions for items talk, yes/no for binary preference, text with aspects for
open preference, text for recommendation requests, and accept/reject or a choice for feedback.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, TypeAlias

Task = Literal["items_talk", "bin_pref", "open_pref", "rec_request", "feedback"]
TASKS: tuple[Task, ...] = ("items_talk", "bin_pref", "open_pref", "rec_request", "feedback")
RecommendationKind = Literal["positive", "negative"]
Side = Literal["a", "b"]
Choice = Literal["a", "b", "neither"]


class ContentError(ValueError):
    """Stored JSON that is not the content or payload it claims to be."""


@dataclass(frozen=True)
class PromptItem:
    item_id: str
    title: str


def _items(value: Any) -> tuple[PromptItem, ...]:
    return tuple(PromptItem(str(entry["item_id"]), str(entry["title"])) for entry in value or ())


@dataclass(frozen=True)
class ItemsTalkContent:
    """A persona, and items that persona has seen (removed from what the answer mentions)."""

    persona: str
    items: tuple[PromptItem, ...] = ()


@dataclass(frozen=True)
class ItemContent:
    """One item: "would you watch it?" (binary preference) or "what do you think?" (open)."""

    item_id: str
    title: str


@dataclass(frozen=True)
class RecRequestContent:
    """Items the responder liked, to write a request for recommendations around."""

    liked: tuple[PromptItem, ...]


@dataclass(frozen=True)
class Recommendation:
    """A recommendation for a request: its real answer (positive) or another's (negative)."""

    kind: RecommendationKind
    items: tuple[PromptItem, ...]
    text: str
    from_request: str


@dataclass(frozen=True)
class FeedbackContent:
    """A request, then one recommendation to accept or reject, or two to choose between.

    For a comparison, ``a`` is shown first and ``b`` second; which of them is the positive one
    is ``positive`` (the order is drawn at random and recorded here)."""

    request_id: str
    request: str
    recommendation: Recommendation | None = None
    a: Recommendation | None = None
    b: Recommendation | None = None
    positive: Side | None = None

    @property
    def is_comparison(self) -> bool:
        return self.a is not None

    def __post_init__(self) -> None:
        if (self.recommendation is None) == (self.a is None):
            raise ContentError("feedback shows one recommendation or a comparison, not both")
        if self.a is not None and (self.b is None or self.positive not in ("a", "b")):
            raise ContentError("a comparison needs a, b and which one is positive")


PromptContent: TypeAlias = ItemsTalkContent | ItemContent | RecRequestContent | FeedbackContent


def content_json(content: PromptContent) -> dict[str, Any]:
    return {key: value for key, value in asdict(content).items() if value is not None}


def _recommendation(value: Any) -> Recommendation | None:
    if value is None:
        return None
    kind = value["kind"]
    if kind not in ("positive", "negative"):
        raise ContentError(f"a recommendation is positive or negative, not {kind!r}")
    return Recommendation(kind, _items(value["items"]), str(value["text"]), value["from_request"])


def content_from_json(task: str, value: dict[str, Any]) -> PromptContent:
    """The typed content of a prompt of ``task``; raises ContentError for anything else."""
    try:
        if task == "items_talk":
            return ItemsTalkContent(str(value["persona"]), _items(value.get("items")))
        if task in ("bin_pref", "open_pref"):
            return ItemContent(str(value["item_id"]), str(value["title"]))
        if task == "rec_request":
            return RecRequestContent(_items(value["liked"]))
        if task == "feedback":
            return FeedbackContent(
                str(value["request_id"]),
                str(value["request"]),
                _recommendation(value.get("recommendation")),
                _recommendation(value.get("a")),
                _recommendation(value.get("b")),
                value.get("positive"),
            )
    except (KeyError, TypeError) as error:
        raise ContentError(f"{task} content lacks {error}") from None
    raise ContentError(f"unknown task {task!r}")


# Answers ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MentionsPayload:
    """Items talk: the text and the catalog ids of the items found in it; ``history`` holds
    the ids of the items an IH simulator was shown as its history with the prompt, removed
    from the mentions like the prompt's own items."""

    text: str
    mentions: tuple[str, ...] = ()
    kind: Literal["mentions"] = "mentions"
    history: tuple[str, ...] = ()


@dataclass(frozen=True)
class YesNoPayload:
    yes: bool
    kind: Literal["yes_no"] = "yes_no"


@dataclass(frozen=True)
class Aspect:
    aspect: str
    sentiment: str


@dataclass(frozen=True)
class AspectsPayload:
    """Open preference: the review, and its aspects with sentiments as the responder labelled
    them; ``labelled`` holds them as the study's aspect labeller (the model ``labeller``,
    `fidelity.aspect_labels`) labelled the same review, once it has."""

    text: str
    aspects: tuple[Aspect, ...] = ()
    kind: Literal["aspects"] = "aspects"
    labelled: tuple[Aspect, ...] = ()
    labeller: str = ""


@dataclass(frozen=True)
class TextPayload:
    """Recommendation request: the request written, and its embedding once embedded (by
    ``embedding_model``; `fidelity.embedding`)."""

    text: str
    kind: Literal["text"] = "text"
    embedding: tuple[float, ...] = ()
    embedding_model: str = ""


@dataclass(frozen=True)
class AcceptRejectPayload:
    accept: bool
    kind: Literal["accept_reject"] = "accept_reject"


@dataclass(frozen=True)
class ChoicePayload:
    """A choice between two recommendations; ``shown_first`` is the one shown first (a person
    may have seen the sides swapped by the workspace)."""

    choice: Choice
    shown_first: Side = "a"
    kind: Literal["choice"] = "choice"


AnswerPayload: TypeAlias = (
    MentionsPayload
    | YesNoPayload
    | AspectsPayload
    | TextPayload
    | AcceptRejectPayload
    | ChoicePayload
)
# The payload kinds each task's answers may have.
PAYLOAD_KINDS: dict[str, tuple[str, ...]] = {
    "items_talk": ("mentions",),
    "bin_pref": ("yes_no",),
    "open_pref": ("aspects",),
    "rec_request": ("text",),
    "feedback": ("accept_reject", "choice"),
}


def _aspects(value: Any) -> tuple[Aspect, ...]:
    return tuple(Aspect(str(a["aspect"]), str(a["sentiment"])) for a in value or ())


def payload_json(payload: AnswerPayload) -> dict[str, Any]:
    return asdict(payload)


def payload_from_json(value: dict[str, Any]) -> AnswerPayload:
    """The typed payload of an answer; raises ContentError for anything else."""
    kind = value.get("kind")
    try:
        if kind == "mentions":
            return MentionsPayload(
                str(value["text"]),
                tuple(str(m) for m in value["mentions"]),
                history=tuple(str(h) for h in value.get("history") or ()),
            )
        if kind == "yes_no":
            return YesNoPayload(bool(value["yes"]))
        if kind == "aspects":
            return AspectsPayload(
                str(value["text"]),
                _aspects(value["aspects"]),
                labelled=_aspects(value.get("labelled")),
                labeller=str(value.get("labeller") or ""),
            )
        if kind == "text":
            vector = tuple(float(number) for number in value.get("embedding") or ())
            return TextPayload(
                str(value["text"]), "text", vector, str(value.get("embedding_model", ""))
            )
        if kind == "accept_reject":
            return AcceptRejectPayload(bool(value["accept"]))
        if kind == "choice":
            if value["choice"] not in ("a", "b", "neither"):
                raise ContentError(f"a choice is a, b or neither, not {value['choice']!r}")
            first = value.get("shown_first", "a")
            if first not in ("a", "b"):
                raise ContentError(f"the side shown first is a or b, not {first!r}")
            return ChoicePayload(value["choice"], first)
    except (KeyError, TypeError) as error:
        raise ContentError(f"{kind} answer lacks {error}") from None
    raise ContentError(f"unknown answer kind {kind!r}")
