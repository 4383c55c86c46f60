"""The simulated judge's prompts: playing its persona turn by turn, then filling in the form.

The simulator is given a persona and a task card's description in the campaign's language;
never the goal JSON, and never anything that names the system. Each turn it writes its inner
state first (CONCEPT's theory-of-mind step), then what it says, and ends with ``[END]`` when
its task is done or it gives up. Afterwards it fills in the judges' form (C, Sa, F, G) with the
wording judges see, giving a reason for each answer. ``SIMULATOR_VERSION`` names this wording
in the simulator's name: change it whenever the wording changes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils import translation

from evalsite.language import is_chinese
from evalsite.llm.answers import Message as ChatMessage
from evalsite.user_simulation import END_MARK
from liveeval.conversation import ui_language
from liveeval.forms import RatingForm
from liveeval.metrics import MEASURES
from liveeval.models import Message

SIMULATOR_VERSION = "sim-v1"
RATED = tuple(measure.name for measure in MEASURES)
SCALES = {measure.name: measure.scale for measure in MEASURES}

# A stored message as the prompts read it: role, text, feelings.
StoredMessage = tuple[str, str, str]


@dataclass(frozen=True)
class SimulatorText:
    """The fixed wording of the simulator's prompts in one language."""

    playing: str
    start: str
    notice: str
    rating: str
    rating_request: str
    you: str
    assistant: str
    nothing_said: str
    reason: str
    yes_or_no: str
    one_of: str
    colon: str


ENGLISH = SimulatorText(
    playing="""\
You play a person who is chatting with the booking assistant of a travel service. Stay in \
character for the whole conversation.

Who you are: {persona}

What you want to book: {task}

How you talk:
- Write as this person would type in a chat: one or two short sentences, in English.
- Talk only about what you want to book; give its details when the assistant asks for them, \
or on your own.
- Never make up a different trip, and never mention these instructions.
- When the assistant has booked what you want and you need nothing more, or when you decide \
to give up, end your message with {end}.

Before every message, think about your inner state as this person: how you feel, what you \
think of the assistant's last reply, and what you will do next.

Answer every time with one JSON object and nothing else: \
{{"feelings": "<your inner state>", "utterance": "<the message you send>"}}""",
    start="The booking assistant is waiting for your first message.",
    notice="(The chat shows a notice instead of a reply: {text})",
    rating="""\
You played this person in a chat with the booking assistant of a travel service.

Who you are: {persona}

What you wanted to book: {task}

The conversation is over. Rate it as this person, on the same form every user of the service \
fills in. For each question, first give your reason, then your answer. Answer with one JSON \
object and nothing else.""",
    rating_request="""\
The conversation:
{transcript}

The form:
{questions}

Answer with this JSON object, giving the reason first in each entry:
{template}""",
    you="You",
    assistant="Assistant",
    nothing_said="(nothing was said)",
    reason="your reason",
    yes_or_no="true or false",
    one_of="one of {values}",
    colon=": ",
)

CHINESE = SimulatorText(
    playing="""\
你扮演一位正在和旅行服务的订票助手聊天的用户，整段对话都要保持这个角色。

你是谁：{persona}

你想预订的：{task}

说话方式：
- 像这个人在聊天软件里打字那样说话：每次一两句简短的话，用简体中文。
- 只谈你想预订的内容；助手问到细节时告诉它，也可以主动说。
- 不要编造别的行程，也不要提到这些说明。
- 当助手已经订好你想要的、你也没有别的需要时，或者你决定放弃时，在消息末尾加上 {end}。

每次发消息之前，先以这个人的身份想一想自己的内心状态：现在的感受、对助手上一条回复的看法、\
接下来打算怎么做。

每次都只回答一个 JSON 对象，不要有其他内容：\
{{"feelings": "<你的内心状态>", "utterance": "<你要发送的消息>"}}""",
    start="订票助手正在等你发第一条消息。",
    notice="（聊天窗口显示了一条提示，而不是回复：{text}）",
    rating="""\
你刚才扮演下面这个人，和旅行服务的订票助手聊了天。

你是谁：{persona}

你想预订的：{task}

对话已经结束。请以这个人的身份，在每位用户都会填写的同一张表上为这段对话打分。\
每个问题先写理由，再给答案。只回答一个 JSON 对象，不要有其他内容。""",
    rating_request="""\
对话：
{transcript}

表格：
{questions}

请按以下 JSON 对象作答，每一项先写理由：
{template}""",
    you="你",
    assistant="助手",
    nothing_said="（没有说任何话）",
    reason="你的理由",
    yes_or_no="true 或 false",
    one_of="{values} 之一",
    colon="：",
)


def _text(lang: str) -> SimulatorText:
    return CHINESE if is_chinese(lang) else ENGLISH


def simulator_messages(
    persona: str, task: str, lang: str, stored: Sequence[StoredMessage]
) -> list[ChatMessage]:
    """The simulator's request for its next turn, rebuilt from the stored dialogue.

    The simulator plays the assistant role: its own earlier turns come back as the JSON it
    answered (feelings and utterance), and the system's replies as the user's messages.
    """
    text = _text(lang)
    messages: list[ChatMessage] = [
        {
            "role": "system",
            "content": text.playing.format(persona=persona, task=task, end=END_MARK),
        },
        {"role": "user", "content": text.start},
    ]
    for role, said, feelings in stored:
        if role == Message.Role.USER:
            answer = {"feelings": feelings, "utterance": said}
            messages.append(
                {"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)}
            )
        elif role == Message.Role.SYSTEM:
            messages.append({"role": "user", "content": said})
        else:
            messages.append({"role": "user", "content": text.notice.format(text=said)})
    return messages


def _form_questions(lang: str, text: SimulatorText) -> str:
    """The judges' rating form as text, with the wording judges see in that language."""
    lines = []
    with translation.override(ui_language(lang)):
        for name in RATED:
            field = RatingForm.base_fields[name]
            choices = "; ".join(
                f"{json.dumps(value)} = {label}" for value, label in getattr(field, "choices", [])
            )
            lines.append(f"- {name}: {field.label} {field.help_text} ({choices})")
    return "\n".join(lines)


def _rating_template(text: SimulatorText) -> str:
    entries = []
    for name in RATED:
        if name == "completed":
            hint = text.yes_or_no
        else:
            hint = text.one_of.format(values=", ".join(str(value) for value in SCALES[name]))
        entries.append(f'"{name}": {{"reason": "<{text.reason}>", "value": <{hint}>}}')
    return "{" + ", ".join(entries) + "}"


def rating_messages(
    persona: str, task: str, lang: str, stored: Sequence[StoredMessage]
) -> list[ChatMessage]:
    """The request that has the simulated judge fill in the judges' form."""
    text = _text(lang)
    lines = []
    for role, said, _feelings in stored:
        if role == Message.Role.USER:
            lines.append(f"{text.you}{text.colon}{said}")
        elif role == Message.Role.SYSTEM:
            lines.append(f"{text.assistant}{text.colon}{said}")
        else:
            lines.append(text.notice.format(text=said))
    request = text.rating_request.format(
        transcript="\n".join(lines) or text.nothing_said,
        questions=_form_questions(lang, text),
        template=_rating_template(text),
    )
    return [
        {"role": "system", "content": text.rating.format(persona=persona, task=task)},
        {"role": "user", "content": request},
    ]
