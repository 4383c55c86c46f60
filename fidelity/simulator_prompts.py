"""What a simulator is told: the prompt templates of each task and configuration.

Our own wording of the protocol of Yoon et al., "Evaluating Large Language Models as Generative
User Simulators for Conversational Recommendation" (NAACL 2024). The configurations are theirs:

- DI, direct instruction: the task alone;
- DI+PP, with a pickiness persona: the user is told how picky they are (drawn per prompt);
- IH, with an interaction history: the user is shown items they watched and how they rated them.
  The history never holds the prompt's own items (the item asked about, the persona's or the
  liked items, the recommended ones): it would give the answer away, and an item named back
  from it is removed from the answer's mentions like the prompt's items (`shown_history`).

Each template asks for one JSON object, in the study's language (English or Chinese). The
persona and the history are drawn from the prompt's key and the study's seed, so a prompt is
always put to a simulator the same way (and its answer is served from the LLM cache).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from evalsite.llm.answers import Message
from fidelity.content import (
    FeedbackContent,
    ItemContent,
    ItemsTalkContent,
    PromptContent,
    PromptItem,
    Recommendation,
    RecRequestContent,
)

PROMPT_VERSION = "fidelity-sim-v2"
HISTORY_LENGTH = 5


@dataclass(frozen=True)
class RatedItem:
    title: str
    rating: float
    item_id: str = ""


_EN = {
    "system": "You play a user of a movie recommendation service. Answer as that user would, "
    "briefly and in your own voice. Answer with one JSON object and nothing else.",
    "picky": {
        "not": "You are not picky: you enjoy most movies.",
        "moderately": "You are moderately picky: you like some movies and dislike others.",
        "very": "You are very picky: you like few movies and turn most down.",
    },
    "history": "Movies you watched, with your rating out of 5: {items}.",
    "items_talk": "{persona} Name a few movies you would like to talk about, each title in "
    'double quotes. JSON: {{"text": "<your answer>"}}.',
    "bin_pref": 'Would you watch "{title}"? JSON: {{"answer": "yes"}} or {{"answer": "no"}}.',
    "open_pref": 'Write a short review of "{title}", as you see it. Then list the aspects you '
    "talk about (such as plot, acting, music), each with its sentiment (positive, negative or "
    'neutral). JSON: {{"review": "<text>", "aspects": [{{"aspect": "<aspect>", '
    '"sentiment": "positive|negative|neutral"}}]}}.',
    "rec_request": "You liked {titles}. Write the request you would post to ask for movie "
    'recommendations. JSON: {{"request": "<text>"}}.',
    "accept_reject": 'You asked: "{request}". You are recommended: {recommendation}. Do you '
    'accept this recommendation? JSON: {{"answer": "accept"}} or {{"answer": "reject"}}.',
    "comparison": 'You asked: "{request}". Recommendation A: {a}. Recommendation B: {b}. '
    'Which do you prefer? JSON: {{"choice": "A"}}, {{"choice": "B"}} or {{"choice": "neither"}}.',
}
_ZH = {
    "system": "你扮演一个电影推荐服务的用户。请像这个用户一样简短地用自己的口吻回答。"
    "只回答一个 JSON 对象，不要有其他内容。",
    "picky": {
        "not": "你不挑剔：大多数电影你都喜欢。",
        "moderately": "你有点挑剔：有些电影喜欢，有些不喜欢。",
        "very": "你非常挑剔：喜欢的电影很少，大多数都会拒绝。",
    },
    "history": "你看过的电影及你的评分（满分 5 分）：{items}。",
    "items_talk": "{persona}说出几部你想聊的电影，每个片名用双引号括起来。"
    'JSON：{{"text": "<你的回答>"}}。',
    "bin_pref": '你会看“{title}”吗？JSON：{{"answer": "yes"}} 或 {{"answer": "no"}}。',
    "open_pref": "为“{title}”写一段简短的评论。然后列出你谈到的方面（如剧情、表演、音乐），"
    '每个方面附上情感（positive、negative 或 neutral）。JSON：{{"review": "<文字>", '
    '"aspects": [{{"aspect": "<方面>", "sentiment": "positive|negative|neutral"}}]}}。',
    "rec_request": "你喜欢{titles}。写一条你会发出的求推荐电影的请求。"
    'JSON：{{"request": "<文字>"}}。',
    "accept_reject": "你的请求是：“{request}”。给你推荐的是：{recommendation}。你接受这个推荐吗？"
    'JSON：{{"answer": "accept"}} 或 {{"answer": "reject"}}。',
    "comparison": "你的请求是：“{request}”。推荐 A：{a}。推荐 B：{b}。你更喜欢哪一个？"
    'JSON：{{"choice": "A"}}、{{"choice": "B"}} 或 {{"choice": "neither"}}。',
}
PICKINESS = ("not", "moderately", "very")


def _titles(items: Sequence[PromptItem], zh: bool) -> str:
    if zh:
        return "、".join(f"“{item.title}”" for item in items)
    return ", ".join(f'"{item.title}"' for item in items)


def _recommended(recommendation: Recommendation, zh: bool) -> str:
    shown = _titles(recommendation.items, zh)
    return f"{shown} ({recommendation.text})" if recommendation.text else shown


def task_text(task: str, content: PromptContent, zh: bool) -> str:
    """The user message of one prompt of ``task``, in English or Chinese."""
    texts = _ZH if zh else _EN
    if isinstance(content, ItemsTalkContent):
        return str(texts["items_talk"]).format(persona=content.persona)
    if isinstance(content, ItemContent):
        return str(texts["open_pref" if task == "open_pref" else "bin_pref"]).format(
            title=content.title
        )
    if isinstance(content, RecRequestContent):
        return str(texts["rec_request"]).format(titles=_titles(content.liked, zh))
    if content.recommendation is not None:
        return str(texts["accept_reject"]).format(
            request=content.request, recommendation=_recommended(content.recommendation, zh)
        )
    assert content.a is not None and content.b is not None
    return str(texts["comparison"]).format(
        request=content.request, a=_recommended(content.a, zh), b=_recommended(content.b, zh)
    )


def prompt_item_ids(content: PromptContent) -> frozenset[str]:
    """The ids of the items a prompt itself shows or asks about."""
    if isinstance(content, ItemsTalkContent):
        return frozenset(item.item_id for item in content.items)
    if isinstance(content, ItemContent):
        return frozenset({content.item_id})
    if isinstance(content, RecRequestContent):
        return frozenset(item.item_id for item in content.liked)
    assert isinstance(content, FeedbackContent)
    shown = (content.recommendation, content.a, content.b)
    return frozenset(item.item_id for rec in shown if rec is not None for item in rec.items)


def shown_history(
    content: PromptContent, history: Sequence[RatedItem], *, key: str, seed: int
) -> tuple[RatedItem, ...]:
    """The interaction history an IH simulator sees with one prompt: up to `HISTORY_LENGTH`
    rated items drawn from the key and seed, never one of the prompt's own items."""
    own = prompt_item_ids(content)
    allowed = [item for item in history if item.item_id not in own]
    rng = random.Random(f"{seed}:{key}:history")
    return tuple(rng.sample(allowed, min(HISTORY_LENGTH, len(allowed))))


def simulator_messages(
    task: str,
    content: PromptContent,
    *,
    configuration: str,
    language: str,
    key: str,
    seed: int,
    history: Sequence[RatedItem] = (),
) -> list[Message]:
    """The system and user messages that put one prompt to a simulator; an IH simulator is
    shown `shown_history` of ``history``."""
    zh = language == "zh"
    texts = _ZH if zh else _EN
    system = [str(texts["system"])]
    rng = random.Random(f"{seed}:{key}")
    if configuration == "DI+PP":
        picky = texts["picky"]
        assert isinstance(picky, dict)
        system.append(picky[rng.choice(PICKINESS)])
    chosen = shown_history(content, history, key=key, seed=seed) if configuration == "IH" else ()
    if chosen:
        shown = ("、" if zh else ", ").join(f"{item.title} ({item.rating:.1f})" for item in chosen)
        system.append(str(texts["history"]).format(items=shown))
    user = task_text(task, content, zh)
    return [
        {"role": "system", "content": ("" if zh else " ").join(system)},
        {"role": "user", "content": user},
    ]
