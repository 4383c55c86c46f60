"""The questions people answer for each fidelity task, as annotation rubrics (English, Chinese).

Each task has its own rubric (`annotation.rubrics`): items talk and recommendation requests
are free text; binary preference is yes/no; open preference is a review with the aspects it
praises, criticises and mentions neutrally (the same three sentiments a simulator gives);
feedback is accept/reject (yes/no) for one recommendation and an A/B choice with "neither"
for two. The wording follows the tasks of Yoon et al. (NAACL 2024),
written for EvalSite.
"""

from __future__ import annotations

from typing import Any

from annotation.models import Rubric
from annotation.rubrics import load_rubric

# Version 2 adds the aspects a review mentions without praise or criticism (neutral).
VERSION = 2
FILMS = "films"
WATCH = "watch"
REVIEW = "review"
LIKED_ASPECTS = "liked_aspects"
DISLIKED_ASPECTS = "disliked_aspects"
NEUTRAL_ASPECTS = "neutral_aspects"
REQUEST = "request"
ACCEPT = "accept"
CHOICE = "choice"


def _level(
    value: int, en: str, zh: str, description_en: str, description_zh: str
) -> dict[str, Any]:
    return {
        "value": value,
        "label_en": en,
        "label_zh": zh,
        "description_en": description_en,
        "description_zh": description_zh,
    }


def _text(
    key: str, names: tuple[str, str], questions: tuple[str, str], **extra: Any
) -> dict[str, Any]:
    return {
        "key": key,
        "name_en": names[0],
        "name_zh": names[1],
        "question_en": questions[0],
        "question_zh": questions[1],
        "kind": "text",
        **extra,
    }


_FILMS = _text(
    FILMS,
    ("Films to talk about", "想聊的电影"),
    (
        "You are the person described above. Which films would you like to talk about? Name "
        "each film on its own line, with its year if you know it, e.g. Alien (1979).",
        "假设你是上面描述的人。你想聊哪些电影？每行写一部电影，知道年份的话请加上，例如《异形》(1979)。",
    ),
    max_chars=2000,
)
_WATCH = {
    "key": WATCH,
    "name_en": "Would watch",
    "name_zh": "愿意观看",
    "question_en": "Would you watch this film?",
    "question_zh": "你会看这部电影吗？",
    "kind": "binary",
    "scale": [0, 1],
    "level_of_measurement": "nominal",
    "levels": [
        _level(0, "No", "否", "I would not watch it.", "我不会看。"),
        _level(1, "Yes", "是", "I would watch it.", "我会看。"),
    ],
}
_REVIEW = _text(
    REVIEW,
    ("Review", "评论"),
    (
        "Write a short review of this film, or what you think of it, in a few sentences.",
        "用几句话写一段关于这部电影的简短评论，或你对它的看法。",
    ),
    max_chars=3000,
)
_LIKED = _text(
    LIKED_ASPECTS,
    ("Aspects praised", "称赞的方面"),
    (
        "Which aspects of the film does your review praise? One per line, e.g. plot, acting.",
        "你的评论称赞了电影的哪些方面？每行一个，例如剧情、表演。",
    ),
    required=False,
    max_chars=500,
)
_DISLIKED = _text(
    DISLIKED_ASPECTS,
    ("Aspects criticised", "批评的方面"),
    (
        "Which aspects of the film does your review criticise? One per line.",
        "你的评论批评了电影的哪些方面？每行一个。",
    ),
    required=False,
    max_chars=500,
)
_NEUTRAL = _text(
    NEUTRAL_ASPECTS,
    ("Aspects mentioned neutrally", "中性提及的方面"),
    (
        "Which aspects does your review mention without praising or criticising them? One per "
        "line.",
        "你的评论提到了哪些方面，但既没有称赞也没有批评？每行一个。",
    ),
    required=False,
    max_chars=500,
)
_REQUEST = _text(
    REQUEST,
    ("Request", "推荐请求"),
    (
        "You liked the films listed above. Write a request for film recommendations, as you "
        "would post it on a forum.",
        "你喜欢上面列出的电影。请写一条求推荐电影的请求，就像你会在论坛上发的那样。",
    ),
    max_chars=2000,
)
_ACCEPT = {
    "key": ACCEPT,
    "name_en": "Accept the recommendation",
    "name_zh": "接受推荐",
    "question_en": "You made the request above; under it is a recommendation. Would you accept it?",
    "question_zh": "上面的请求是你发的，下面是一条推荐。你会接受它吗？",
    "kind": "binary",
    "scale": [0, 1],
    "level_of_measurement": "nominal",
    "levels": [
        _level(0, "Reject", "拒绝", "It does not answer my request.", "它不符合我的请求。"),
        _level(1, "Accept", "接受", "It answers my request.", "它符合我的请求。"),
    ],
}
_CHOICE = {
    "key": CHOICE,
    "name_en": "Better recommendation",
    "name_zh": "更好的推荐",
    "question_en": "You made the request above. Which recommendation would you accept?",
    "question_zh": "上面的请求是你发的。你会接受哪一条推荐？",
    "kind": "pairwise",
    "scale": [0, 2],
    "level_of_measurement": "nominal",
    "levels": [
        _level(0, "A", "A", "Recommendation A.", "推荐 A。"),
        _level(1, "Neither", "都不接受", "I would accept neither.", "两条都不接受。"),
        _level(2, "B", "B", "Recommendation B.", "推荐 B。"),
    ],
}

_RUBRICS: dict[str, tuple[str, str, list[dict[str, Any]]]] = {
    "items_talk": ("Fidelity: items talk", "保真度：聊电影", [_FILMS]),
    "bin_pref": ("Fidelity: binary preference", "保真度：是否愿意观看", [_WATCH]),
    "open_pref": (
        "Fidelity: open preference",
        "保真度：开放评价",
        [_REVIEW, _LIKED, _DISLIKED, _NEUTRAL],
    ),
    "rec_request": ("Fidelity: recommendation request", "保真度：推荐请求", [_REQUEST]),
    "feedback": ("Fidelity: feedback", "保真度：反馈", [_ACCEPT, _CHOICE]),
}


def rubric_key(task: str) -> str:
    return f"fidelity-{task.replace('_', '-')}"


def rubric_for(task: str) -> Rubric:
    """The rubric people answer ``task`` with, loaded the first time it is needed."""
    found = Rubric.objects.filter(key=rubric_key(task), version=VERSION).first()
    if found is not None:
        return found
    name_en, name_zh, dimensions = _RUBRICS[task]
    data = {
        "key": rubric_key(task),
        "version": VERSION,
        "name_en": name_en,
        "name_zh": name_zh,
        "description": "Simulator-fidelity study questions (Yoon et al., NAACL 2024).",
        "dimensions": dimensions,
    }
    return load_rubric(data)[0]
