"""The LLM evaluator's prompt: the rubric in the transcript's language, then the transcript.

One request per transcript shows the rubric's dimensions that apply to it, with the description
of every level, in the transcript's language (Chinese for ``zh...``, else English), then the
dialogue, and asks for one JSON object giving, for each dimension, a rationale first and then
the score (the chain of thought CONCEPT asked of its evaluator). The system's name and the
simulated user's feelings stay out. ``PROMPT_VERSION`` names this wording in the evaluator's
name: change it whenever the wording changes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from annotation.models import Dimension, Transcript
from evalsite.language import is_chinese
from evalsite.llm.answers import Message

PROMPT_VERSION = "concept-v1"


@dataclass(frozen=True)
class PromptText:
    """The fixed wording of the evaluator's prompt in one language."""

    instructions: str
    rubric: str
    question: str
    levels: str
    preferences: str
    accepted: str
    conversation: str
    user: str
    system: str
    response_a: str
    response_b: str
    answer: str
    rationale: str
    score: str
    colon: str
    examples: str
    example: str
    example_scores: str


ENGLISH = PromptText(
    instructions=(
        "You are an expert evaluator of conversational systems. You read one conversation "
        "between a user and a system and rate the system on each dimension of a rubric. For "
        "each dimension, first write a short rationale that points to what the system said, "
        "then give the score whose level description fits best. Rate the system, not the "
        "user. Answer with one JSON object and nothing else."
    ),
    rubric="Rubric",
    question="Question",
    levels="Levels",
    preferences="The user's stated preferences",
    accepted="The user accepted",
    conversation="Conversation",
    user="User",
    system="System",
    response_a="Response A",
    response_b="Response B",
    answer=(
        "Answer with this JSON object, one entry per dimension in this order, each with the "
        "rationale first and then the score:"
    ),
    rationale="your reasoning",
    score="a whole number from {low} to {high}",
    colon=": ",
    examples="Conversations people have scored, as examples",
    example="Example",
    example_scores="People's scores",
)

CHINESE = PromptText(
    instructions=(
        "你是对话系统的专业评测员。请阅读一段用户与系统之间的对话，按照评分标准的每个维度为系统打分。"
        "对每个维度，先写一段简短的理由，指出系统说了什么，再给出与等级描述最相符的分数。"
        "只评价系统，不评价用户。只回答一个 JSON 对象，不要有其他内容。"
    ),
    rubric="评分标准",
    question="问题",
    levels="等级",
    preferences="用户表达的偏好",
    accepted="用户接受了",
    conversation="对话",
    user="用户",
    system="系统",
    response_a="回复 A",
    response_b="回复 B",
    answer="请按以下 JSON 对象作答，按此顺序每个维度一项，每项先写理由，再给分数：",
    rationale="你的理由",
    score="{low} 到 {high} 的整数",
    colon="：",
    examples="人工评分过的对话示例",
    example="示例",
    example_scores="人工评分",
)


def applicable_dimensions(
    transcript: Transcript, dimensions: Iterable[Dimension]
) -> list[Dimension]:
    """The rubric's questions that are asked about ``transcript``, in the rubric's order."""
    return [dimension for dimension in dimensions if dimension.applies_to(transcript)]


def _rubric_section(dimensions: Sequence[Dimension], text: PromptText, lang: str) -> list[str]:
    lines = [f"## {text.rubric}"]
    for dimension in dimensions:
        lines += [
            "",
            f"### {dimension.key}: {dimension.name(lang)}",
            f"{text.question}{text.colon}{dimension.question(lang)}",
            f"{text.levels}{text.colon}".rstrip(),
        ]
        lines += [
            f"- {level.value} ({level.label(lang)}): {level.description(lang)}"
            for level in dimension.levels.all()
        ]
    return lines


def _conversation_section(
    transcript: Transcript, text: PromptText, heading: str | None = None
) -> list[str]:
    lines = ["", f"## {text.conversation if heading is None else heading}"]
    if transcript.preferences:
        lines.append(f"{text.preferences}{text.colon}{', '.join(transcript.preferences)}")
    if transcript.accepted and transcript.accepted_items:
        lines.append(f"{text.accepted}{text.colon}{', '.join(transcript.accepted_items)}")
    # The system's name and the simulated user's feelings stay out: the evaluator judges only
    # what was said, as an annotator who does not know the system would.
    for number, turn in enumerate(transcript.turns, start=1):
        speaker = text.user if turn["role"] == "user" else text.system
        lines.append(f"[{number}] {speaker}{text.colon}{turn['text']}")
    if transcript.is_pairwise:
        assert transcript.response_a is not None and transcript.response_b is not None
        lines.append(f"{text.response_a}{text.colon}{transcript.response_a['text']}")
        lines.append(f"{text.response_b}{text.colon}{transcript.response_b['text']}")
    return lines


def answer_template(dimensions: Sequence[Dimension], text: PromptText) -> str:
    entries = ", ".join(
        f'"{dimension.key}": {{"rationale": "<{text.rationale}>", "score": <'
        f"{text.score.format(low=dimension.scale_min, high=dimension.scale_max)}>}}"
        for dimension in dimensions
    )
    return "{" + entries + "}"


class Example(Protocol):
    """A scored conversation shown before the one to score (few-shot)."""

    @property
    def transcript(self) -> Transcript: ...

    @property
    def scores(self) -> dict[str, int]: ...


def _examples_section(
    examples: Sequence[Example], dimensions: Sequence[Dimension], text: PromptText
) -> list[str]:
    if not examples:
        return []
    lines = ["", f"# {text.examples}"]
    keys = [dimension.key for dimension in dimensions]
    for number, example in enumerate(examples, start=1):
        lines += _conversation_section(example.transcript, text, f"{text.example} {number}")
        shown = {key: example.scores[key] for key in keys if key in example.scores}
        lines.append(f"{text.example_scores}{text.colon}{json.dumps(shown)}")
    return [*lines, ""]


def evaluation_messages(
    transcript: Transcript, dimensions: Sequence[Dimension], examples: Sequence[Example] = ()
) -> list[Message]:
    """The request for one transcript: the rubric in its language, scored examples if any,
    the dialogue, the format."""
    chinese = is_chinese(transcript.lang)
    text = CHINESE if chinese else ENGLISH
    lang = "zh" if chinese else "en"
    body = [
        *_rubric_section(dimensions, text, lang),
        *_examples_section(examples, dimensions, text),
        *_conversation_section(transcript, text),
        "",
        text.answer,
        answer_template(dimensions, text),
    ]
    return [
        {"role": "system", "content": text.instructions},
        {"role": "user", "content": "\n".join(body)},
    ]


def prompt_template() -> str:
    """The prompt's fixed wording in both languages, as an evaluator version records it."""
    parts = []
    for text in (ENGLISH, CHINESE):
        parts += [
            f"[system] {text.instructions}",
            f"[user] ## {text.rubric} ... # {text.examples} ... ## {text.conversation} ...",
            f"{text.answer}",
        ]
    return "\n".join(parts)
