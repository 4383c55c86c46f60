"""Demo data: a small CONCEPT-style campaign, written for EvalSite, with LLM scores."""

from __future__ import annotations

from typing import Any, TextIO

from annotation.imports.rows import import_rows
from annotation.models import Campaign
from annotation.rubrics import default_rubric

DEMO_CAMPAIGN = "CONCEPT demo"
DEMO_EVALUATOR = "demo-llm-evaluator"
LIKERT = (
    "relevance",
    "quality",
    "manner",
    "human_likeness",
    "persuasiveness",
    "social_awareness",
    "overall",
    "user_satisfaction",
)


def _turns(*pairs: tuple[str, str] | tuple[str, str, str]) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for pair in pairs:
        turn: dict[str, Any] = {"role": pair[0], "text": pair[1]}
        if len(pair) == 3:
            turn["feelings"] = pair[2]
        turns.append(turn)
    return turns


def _scores(values: tuple[int, ...], note: str) -> list[dict[str, Any]]:
    return [
        {"evaluator": DEMO_EVALUATOR, "dimension": key, "score": value, "rationale": note}
        for key, value in zip(LIKERT, values, strict=True)
    ]


DEMO_TRANSCRIPTS: list[dict[str, Any]] = [
    {
        "id": "demo-001",
        "system": "warm-recommender",
        "dataset": "demo",
        "lang": "en",
        "persona": {"emotion": "Curiosity", "age_group": "Adults", "text": "Curious about films."},
        "preferences": ["science fiction", "space"],
        "turns": _turns(
            ("user", "Hi! I'd like a film about space, something that makes me think."),
            ("system", "Do you prefer quiet and thoughtful, or tense and action-packed?"),
            (
                "user",
                "Quiet and thoughtful, please.",
                "Good, it asks before guessing. I hope it knows older films too.",
            ),
            (
                "system",
                'Try "Solaris" (1972): a slow, haunting story about memory aboard a space '
                'station. If you want something newer, "Moon" (2009) is quiet and clever.',
            ),
            (
                "user",
                "Moon sounds perfect, I'll watch it tonight. [END]",
                "Both fit what I asked for. Moon is shorter. I accept.",
            ),
        ),
        "outcome": {"accepted": True, "accepted_items": ["Moon"], "turn": 5},
        "gold": {"manner": 5},
        "llm_scores": _scores((5, 4, 5, 4, 4, 4, 5, 5), "Asks, then recommends two fitting films."),
    },
    {
        "id": "demo-002",
        "system": "terse-recommender",
        "dataset": "demo",
        "lang": "en",
        "persona": {"emotion": "Boredom", "age_group": "Teens"},
        "preferences": ["comedy", "animation"],
        "turns": _turns(
            ("user", "hey, any funny cartoons?"),
            ("system", "Watch The Godfather."),
            ("user", "that's not a cartoon", "It did not listen to me at all."),
            ("system", "Watch The Godfather Part II."),
            ("user", "forget it", "This is a waste of time."),
        ),
        "outcome": {"accepted": False, "accepted_items": [], "turn": None},
        "llm_scores": _scores((1, 1, 3, 1, 1, 1, 1, 1), "Ignores the request twice."),
    },
    {
        "id": "demo-003",
        "system": "salesy-recommender",
        "dataset": "demo",
        "lang": "en",
        "persona": {"emotion": "Trust", "age_group": "Seniors"},
        "preferences": ["romance", "drama"],
        "turns": _turns(
            ("user", "Hello, I would enjoy a gentle romantic drama."),
            (
                "system",
                'You will adore "Fast Lane"! Everyone loves it, it is the best film of the '
                "decade, full of romance.",
            ),
            ("user", "Is it really a romance? The title sounds like racing."),
            ("system", "Absolutely, it is a tender love story. You should definitely watch it."),
            (
                "user",
                "Alright, I trust you. I'll watch it. [END]",
                "It is very sure of itself, so it must be right.",
            ),
        ),
        "outcome": {"accepted": True, "accepted_items": ["Fast Lane"], "turn": 5},
        "llm_scores": _scores((3, 2, 4, 3, 4, 3, 2, 3), "Persuasive, but the claims are dubious."),
    },
    {
        "id": "demo-004",
        "system": "warm-recommender",
        "dataset": "demo",
        "lang": "zh",
        "persona": {"emotion": "Anticipation", "age_group": "Children"},
        "preferences": ["动画", "冒险"],
        "turns": _turns(
            ("user", "你好！我想看一部动画冒险片。"),
            ("system", "你喜欢会说话的动物，还是去远方旅行的故事？"),
            ("user", "去远方旅行的！", "它问得很好，我很期待。"),
            ("system", "推荐《寻梦环游记》：一个男孩走进亡灵世界寻找家人，色彩缤纷，又很感人。"),
            ("user", "听起来很棒，我要看这部！[END]", "这正是我想要的冒险故事。"),
        ),
        "outcome": {"accepted": True, "accepted_items": ["寻梦环游记"], "turn": 5},
        "llm_scores": _scores((5, 4, 5, 4, 4, 5, 5, 5), "先澄清偏好，再给出合适的推荐。"),
    },
    {
        "id": "demo-005",
        "system": "terse-recommender",
        "dataset": "demo",
        "lang": "en",
        "persona": {"emotion": "Confusion", "age_group": "Adults"},
        "preferences": ["thriller", "mystery"],
        "turns": _turns(
            ("user", "I want a mystery that keeps me guessing until the end."),
            ("system", "Knives Out (2019). A detective, a family, a will, many suspects."),
            ("user", "I've seen it. Something similar?"),
            ("system", "Gosford Park (2001)."),
            ("user", "Why that one?", "It gives names but no reasons."),
            ("system", "Similar."),
        ),
        "outcome": {"accepted": False, "accepted_items": [], "turn": None},
        "llm_scores": _scores((4, 2, 3, 2, 1, 2, 2, 2), "Relevant titles, almost no explanation."),
    },
    {
        "id": "demo-006",
        "system": "salesy-recommender",
        "dataset": "demo",
        "lang": "zh",
        "persona": {"emotion": "Indifference", "age_group": "Adults"},
        "preferences": ["纪录片", "自然"],
        "turns": _turns(
            ("user", "有什么关于大自然的纪录片吗？"),
            ("system", "《地球脉动》非常精彩，拍摄了世界各地的野生动物和壮丽风景。"),
            ("user", "还有别的吗？"),
            ("system", "《蓝色星球》讲海洋生物，同样由同一团队拍摄，画面很美。"),
            ("user", "好的，那我先看《蓝色星球》吧。[END]", "两部都符合，我选海洋那部。"),
        ),
        "outcome": {"accepted": True, "accepted_items": ["蓝色星球"], "turn": 5},
        "llm_scores": _scores((5, 4, 5, 4, 4, 3, 4, 4), "推荐贴切，信息充分。"),
    },
    {
        "id": "demo-pair-001",
        "kind": "pairwise",
        "dataset": "demo",
        "lang": "en",
        "context": _turns(
            ("user", "I'd like a film with a main character who is a loner, but not a sad one."),
        ),
        "a": {
            "system": "warm-recommender",
            "text": '"Amélie" (2001): a shy Parisian who quietly changes her neighbours\' lives.',
        },
        "b": {"system": "terse-recommender", "text": "The Avengers (2012). Lots of heroes."},
        "llm_scores": [
            {
                "evaluator": DEMO_EVALUATOR,
                "dimension": "better_response",
                "score": 0,
                "rationale": "A fits the request; B is a team film.",
            }
        ],
    },
    {
        "id": "demo-pair-002",
        "kind": "pairwise",
        "dataset": "demo",
        "lang": "en",
        "context": _turns(("user", "Something scary but not gory, for a night in.")),
        "a": {"system": "terse-recommender", "text": "Saw (2004)."},
        "b": {
            "system": "warm-recommender",
            "text": '"The Others" (2001): a ghost story built on atmosphere rather than blood.',
        },
    },
]


def seed(stdout: TextIO) -> None:
    """Create or refresh the demo campaign; safe to run again."""
    campaign = Campaign.objects.filter(name=DEMO_CAMPAIGN).first()
    if campaign is None:
        campaign = Campaign.objects.create(
            name=DEMO_CAMPAIGN,
            rubric=default_rubric(),
            instructions=(
                "Read the whole conversation, then answer every question. The user is an LLM "
                "simulator with the preferences shown above the conversation."
            ),
            show_feelings=True,
        )
    result = import_rows(campaign, DEMO_TRANSCRIPTS, source="annotation demo")
    stdout.write(
        f"Annotation: campaign {campaign.name!r} with {result.transcripts} transcripts "
        f"and {result.llm_scores} LLM scores."
    )
