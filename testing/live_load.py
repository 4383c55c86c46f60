"""What the live-chat benchmarks share: a judge's utterances and the percentile they report."""

from __future__ import annotations

UTTERANCES = [
    "我想订一张明天从北京去上海的机票",
    "上午或者中午",
    "有没有更便宜的",
    "经济舱",
    "好的",
    "我还想订上海的酒店",
    "住两晚",
    "好的",
]


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile ``q`` (0-100) of ``values``; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]
