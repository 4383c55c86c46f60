"""Cities named in a message, with their role (from, to, stay).

The city names come from ``liveeval.booking.cities``, the one list of the booking world;
well-known places outside it are listed here so that naming one earns guidance.
"""

from __future__ import annotations

import re

from liveeval.booking.cities import CITIES
from liveeval.systems.understanding.scanner import Hit, Scanner

CITY_EN: dict[str, str] = {city.name: city.name_en for city in CITIES}
"""English names by Chinese name, in the order of the booking world's city list."""


# Well-known places outside the booking world: naming one earns guidance instead of silence.
OTHER_PLACES_ZH = (
    "拉萨|三亚|桂林|乌鲁木齐|南宁|贵阳|兰州|合肥|福州|南昌|济南|太原|石家庄|呼和浩特|海口|银川|"
    "西宁|长春|宁波|无锡|珠海|香港|澳门|台北|丽江|大理|洛阳|东京|首尔|纽约|伦敦|巴黎|新加坡|曼谷"
)


OTHER_PLACES_EN = (
    "lhasa|sanya|guilin|urumqi|nanning|guiyang|lanzhou|hefei|fuzhou|nanchang|jinan|taiyuan|"
    "shijiazhuang|hohhot|haikou|changchun|ningbo|wuxi|zhuhai|hong kong|macau|macao|taipei|lijiang|"
    "dali|luoyang|tokyo|seoul|new york|london|paris|singapore|bangkok"
)


_FROM_BEFORE = re.compile(
    r"(?:从|由|自|离开|\bleaving(?: from)?|\bdeparting(?: from)?|\bout of|\bfrom)\s*$"
)


_TO_BEFORE = re.compile(
    r"(?:到|去|至|往|飞|回|抵达|前往|->|→|-|—|~|\bto|\binto|\btowards?|\bfor"
    r"|\barriv(?:e|ing) (?:in|at))\s*$"
)


_STAY_BEFORE = re.compile(r"(?:在|住|入住|\bin|\bat|\bnear)\s*$")


_FROM_AFTER = re.compile(r"^\s*(?:出发|始发|起飞|发车|上车|走)")


_STAY_AFTER = re.compile(r"^\s*(?:的?(?:酒店|宾馆|旅馆|住宿)|hotels?\b)")


# What people also call the cities: nicknames, old spellings and common misspellings.
OTHER_SPELLINGS: dict[str, str] = {
    "魔都": "上海", "帝都": "北京", "羊城": "广州", "鹏城": "深圳", "蓉城": "成都", "山城": "重庆",
    "春城": "昆明", "冰城": "哈尔滨", "鹭岛": "厦门",
    "bejing": "北京", "beijng": "北京", "peking": "北京", "shangai": "上海", "shanghia": "上海",
    "shanghi": "上海", "guangzou": "广州", "canton": "广州", "shenzen": "深圳",
    "hangzou": "杭州", "hangzhow": "杭州", "nanking": "南京", "chongqin": "重庆",
    "chungking": "重庆",
    "chendu": "成都", "chengdo": "成都", "tianjing": "天津", "tientsin": "天津", "qindao": "青岛",
    "tsingtao": "青岛", "amoy": "厦门", "harbing": "哈尔滨", "wuhang": "武汉", "changsa": "长沙",
    "zhenzhou": "郑州", "kunmin": "昆明", "shenyan": "沈阳", "suzho": "苏州",
}  # fmt: skip


_CITY_PATTERN = "|".join(
    list(CITY_EN)
    + [word for word in OTHER_SPELLINGS if not word.isascii()]
    + [r"\bxi'?\s?an\b"]
    + [rf"\b{en.lower()}\b" for en in CITY_EN.values()]
    + [rf"\b{word}\b" for word in OTHER_SPELLINGS if word.isascii()]
)


_CITY_BY_SPELLING = (
    {zh: zh for zh in CITY_EN} | {en.lower(): zh for zh, en in CITY_EN.items()} | OTHER_SPELLINGS
)


def _city_name(spelling: str) -> str:
    if spelling.startswith("xi"):
        return _CITY_BY_SPELLING.get(spelling, "西安")
    return _CITY_BY_SPELLING[spelling]


def city_hits(scanner: Scanner) -> list[str]:
    """Cities with their role; returns the places named that the booking world lacks."""
    found: list[tuple[str, str | None, int, int]] = []
    text = scanner.text
    for match in re.finditer(_CITY_PATTERN, text):
        before, after = text[: match.start()], text[match.end() :]
        role: str | None = None
        if _FROM_BEFORE.search(before) or _FROM_AFTER.search(after):
            role = "from_city"
        elif _TO_BEFORE.search(before):
            role = "to_city"
        elif _STAY_BEFORE.search(before) or _STAY_AFTER.search(after):
            role = "stay_city"
        found.append((_city_name(match[0]), role, match.start(), match.end()))
    for index, (name, role, start, end) in enumerate(found):
        following = found[index + 1] if index + 1 < len(found) else None
        # "北京到上海", "Beijing to Shanghai": an unmarked city just before a destination.
        if (
            role is None
            and following is not None
            and following[1] == "to_city"
            and len(text[end : following[2]]) <= 6
        ):
            role = "from_city"
        scanner.hits.append(Hit(role or "city", name, start, end))
        scanner.mask(start, end)
    other = re.finditer(OTHER_PLACES_ZH + rf"|\b(?:{OTHER_PLACES_EN})\b", scanner.masked)
    return [match[0] for match in other]
