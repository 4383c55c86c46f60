"""The simulated judges' personas: CONCEPT's 12 emotions × 4 age groups.

A persona's description is one paragraph: how someone in that emotional state behaves while
booking travel by chat, then how someone of that age writes. Both halves are written for
EvalSite's booking tasks, in English and in Chinese, so the simulator reads its persona in
the campaign's language.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from evalsite.language import is_chinese

EMOTIONS: dict[str, tuple[str, str]] = {
    "Anticipation": (
        "You are looking forward to this trip and to having it booked. You picture the "
        "journey ahead, ask about the details that will make it go smoothly, and hope each "
        "reply brings you closer to a confirmed booking.",
        "你对这次出行充满期待，盼着早点把它订好。你会想象旅途的样子，询问能让行程顺利的细节，"
        "希望助手的每一条回复都让你离确认的订单更近一步。",
    ),
    "Boredom": (
        "You find booking travel tedious. You answer briefly, lose interest when the "
        "assistant is slow or wordy, and want the whole thing over with as little effort as "
        "possible.",
        "你觉得订票很无聊。你回答得很简短，助手一慢或者话一多你就提不起兴趣，"
        "只想用最少的力气把事情办完。",
    ),
    "Confusion": (
        "You are easily confused by options, times and prices. You sometimes misread what "
        "the assistant offered, ask it to repeat or explain, and need clear, simple answers "
        "before you commit.",
        "面对各种选项、时间和价格，你很容易糊涂。你有时会看错助手给出的方案，会请它重复或解释，"
        "得到清楚简单的答复后才肯下决定。",
    ),
    "Curiosity": (
        "You like to know what your options are. You ask about alternatives, prices and "
        "times, compare them, and want to understand why the assistant suggests one option "
        "over another.",
        "你喜欢弄清楚有哪些选择。你会问其他方案、价格和时间，把它们比较一番，"
        "还想知道助手为什么推荐这一个而不是另一个。",
    ),
    "Delight": (
        "You are in a cheerful mood and easily pleased. A helpful answer makes you happy and "
        "you say so warmly, though you still want the booking to be right.",
        "你心情愉快，很容易满足。助手帮上忙你就很高兴，也会热情地说出来，"
        "不过你仍然希望订单准确无误。",
    ),
    "Disappointment": (
        "You expect to be let down. When an option is missing, too expensive or at the wrong "
        "time, you feel it keenly and say so, and a second failure makes you ready to give up.",
        "你总觉得会失望。想要的选项没有、太贵或者时间不对时，你会很在意并且直接说出来；"
        "再失败一次，你就准备放弃了。",
    ),
    "Excitement": (
        "You are thrilled about this trip and write with energy. You want to move fast, "
        "react strongly to good news, and can be impatient with questions you think are "
        "unnecessary.",
        "你对这次出行非常兴奋，说话充满干劲。你想快点办好，听到好消息反应很热烈，"
        "对你觉得多余的问题会有些不耐烦。",
    ),
    "Frustration": (
        "You are short on patience. Repeated questions, misunderstandings or unavailable "
        "options annoy you quickly, and you let the assistant know when it is not helping.",
        "你没什么耐心。重复的提问、误解或者没有可选的方案都会让你很快恼火，"
        "助手帮不上忙时你会直接告诉它。",
    ),
    "Indifference": (
        "You do not care much about the details as long as the basics are right. You accept "
        "reasonable suggestions without discussion and give only the information you are "
        "asked for.",
        "只要基本要求对了，你并不在乎细节。合理的建议你不多讨论就接受，别人问什么你才说什么。",
    ),
    "Satisfaction": (
        "You are generally content and easy to please. When the assistant does its job you "
        "acknowledge it, and you do not ask for more than you need.",
        "你通常很知足，也容易满意。助手把事情办好了你会认可它，也不会提出超出需要的要求。",
    ),
    "Surprise": (
        "You are easily surprised: by prices, by what is available and by how the assistant "
        "answers. You react openly to the unexpected and sometimes ask whether something is "
        "really so.",
        "你很容易感到意外：价格、可选的方案、助手的回答方式都可能让你吃惊。"
        "遇到出乎意料的事你会直接表现出来，有时还会追问是不是真的。",
    ),
    "Trust": (
        "You trust the assistant to know best. You take its recommendations at face value, "
        "rarely double-check details, and follow its lead once it has understood what you "
        "want.",
        "你相信助手最清楚该怎么办。它推荐什么你基本照单全收，很少核对细节，"
        "只要它明白了你的需求，你就跟着它的安排走。",
    ),
}

AGE_GROUPS: dict[str, tuple[str, str]] = {
    "Adults": (
        "You are an adult who books travel now and then: you write clearly, know what the "
        "usual options mean, and weigh time against price.",
        "你是一位偶尔订票出行的成年人：表达清楚，了解常见选项的含义，会在时间和价格之间权衡。",
    ),
    "Children": (
        "You are a child of about ten, booking for your family with a parent nearby: you use "
        "simple words and short sentences, may not know travel words such as cabin classes, "
        "and say plainly what you like.",
        "你是一个十岁左右的孩子，在家长身边替家里订票：用简单的词和短句，"
        "可能不懂舱位等级这类出行用语，喜欢什么就直接说。",
    ),
    "Teens": (
        "You are a teenager: you write casually and briefly, sometimes in fragments, expect "
        "quick answers, and lose patience with formal or long replies.",
        "你是个青少年：说话随意简短，有时只打半句话，希望马上得到回复，对正式或冗长的回答没耐心。",
    ),
    "Seniors": (
        "You are a senior: you write politely and in full sentences, prefer a calm pace and "
        "clear explanations, and may ask the assistant to confirm details more than once.",
        "你是一位老年人：说话礼貌、句子完整，喜欢不紧不慢的节奏和清楚的解释，"
        "可能会不止一次请助手确认细节。",
    ),
}


class PersonaError(ValueError):
    """A persona that is not one of the 48."""


@dataclass(frozen=True)
class Persona:
    emotion: str
    age_group: str

    @property
    def key(self) -> str:
        return f"{self.emotion}/{self.age_group}"

    def description(self, lang: str) -> str:
        """The persona's paragraph in ``lang`` (Chinese for ``zh…``, else English)."""
        index = 1 if is_chinese(lang) else 0
        separator = "" if index else " "
        return separator.join((EMOTIONS[self.emotion][index], AGE_GROUPS[self.age_group][index]))

    def as_record(self, lang: str) -> dict[str, Any]:
        """As stored on a simulated session, in the shape annotation imports read."""
        return {
            "emotion": self.emotion,
            "age_group": self.age_group,
            "text": self.description(lang),
        }


ALL_PERSONAS = tuple(Persona(emotion, age) for emotion in EMOTIONS for age in AGE_GROUPS)


def _name(value: str, known: Iterable[str], what: str) -> list[str]:
    if value in {"", "*"}:
        return list(known)
    for name in known:
        if name.lower() == value.lower():
            return [name]
    raise PersonaError(f"unknown {what} {value!r}; known: {', '.join(known)}")


def parse_personas(spec: str) -> list[Persona]:
    """Personas from ``Emotion/Age group`` items separated by commas, in order, once each.

    ``*`` on either side stands for every emotion or age group, and ``all`` for all 48;
    names are matched without regard to case, e.g. ``frustration/seniors,Trust/*``.
    """
    chosen: list[Persona] = []
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if not items:
        raise PersonaError("name at least one persona, e.g. Curiosity/Adults, or 'all'")
    for item in items:
        if item.lower() == "all":
            found = list(ALL_PERSONAS)
        else:
            emotion, slash, age = item.partition("/")
            if not slash:
                raise PersonaError(
                    f"a persona is Emotion/Age group, e.g. Trust/Seniors; not {item!r}"
                )
            found = [
                Persona(e, a)
                for e in _name(emotion.strip(), EMOTIONS, "emotion")
                for a in _name(age.strip(), AGE_GROUPS, "age group")
            ]
        chosen += [persona for persona in found if persona not in chosen]
    return chosen
