"""Numbers written in digits, Chinese numerals or English words, and prices."""

from __future__ import annotations

import re

from liveeval.systems.understanding.scanner import Found, Scanner

_CN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4,
    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip


_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}


EN_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30,
}  # fmt: skip


EN_ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
    "fourth": 4, "4th": 4, "fifth": 5, "5th": 5, "last": -1,
}  # fmt: skip


CN_NUM = r"[零〇一二两三四五六七八九十百千万]+"


EN_NUM = "|".join(sorted(EN_NUMBERS, key=len, reverse=True))


NUM = rf"\d+(?:,\d{{3}})*|{CN_NUM}"


SMALL_NUM = r"\d{1,2}|[一二两三四五六七八九十]{1,3}"


def number_value(token: str) -> int | None:
    """The integer written as Arabic digits, Chinese numerals or an English word.

    Colloquial Chinese tails count in the unit below the last one: 一千二 is 1200 and
    三百五 is 350, as people say prices.
    """
    token = token.strip().replace(",", "")
    if not token:
        return None
    if token.isdigit():
        return int(token)
    if token in EN_NUMBERS:
        return EN_NUMBERS[token]
    total = section = 0
    digit: int | None = None
    last_unit = 1
    after_zero = False
    for char in token:
        if char in _CN_DIGITS:
            if digit is not None:
                return None
            digit = _CN_DIGITS[char]
            if digit == 0:
                after_zero = True
                digit = None
        elif char in _CN_UNITS:
            unit = _CN_UNITS[char]
            if unit == 10000:
                total = (total + section + (digit or 0)) * 10000
                section = 0
            else:
                section += (1 if digit is None else digit) * unit
            digit = None
            last_unit = unit
            after_zero = False
        else:
            return None
    if digit is not None:
        section += digit * (last_unit // 10 if last_unit >= 100 and not after_zero else 1)
    return total + section


_PRICE_NUM = rf"\d+(?:,\d{{3}})*(?:\.\d+)?\s*k\b|\d+(?:,\d{{3}})*|{CN_NUM}"


_PER_NIGHT = r"(?:\s*(?:per|a|each|/)\s*night)?"


_PER_NIGHT_ZH = r"(?:\s*(?:一晚|每晚|/晚|一天|每天))?"


_NOT_A_PRICE = r"(?!\s*(?:晚|天|星|点|号|个|夜|日|月|:|折|间|张|位|stars?|nights?|days?|%))"


MIN_PRICE = 50
"""Smaller numbers after a price word are something else ("最多3晚" is nights)."""


def price_value(token: str) -> int | None:
    token = token.strip().replace(",", "")
    if token.endswith("k"):
        try:
            return round(float(token[:-1].strip()) * 1000)
        except ValueError:
            return None
    if re.fullmatch(r"\d+\.\d+", token):
        return round(float(token))
    return number_value(token)


def number_hits(scanner: Scanner) -> None:
    def price(m: re.Match[str]) -> Found:
        value = price_value(m["n"])
        if value is None or value < MIN_PRICE:
            return None
        return [("max_price", value)]

    def stars(m: re.Match[str]) -> Found:
        value = number_value(m["n"])
        if value is None or not 1 <= value <= 5:
            return None
        return [("min_stars", value)]

    def nights(m: re.Match[str]) -> Found:
        text = m["n"]
        value = 1 if text in ("a", "an") else number_value(text)
        if value is None or not 1 <= value <= 30:
            return None
        return [("nights", value)]

    scanner.take(
        r"(?:每晚|一晚|每天|一天|单价|价格|票价|房价)?\s*(?:要|在)?\s*"
        r"(?:不超过|不高于|不要超过|别超过|不能超过|不超出|低于|少于|小于|最多|最高|顶多|预算|控制在)"
        rf"\s*(?:¥|rmb)?\s*(?P<n>{_PRICE_NUM})\s*(?:元|块钱|块|rmb)?\s*(?:以内|以下|之内|内)?"
        + _PER_NIGHT_ZH
        + _NOT_A_PRICE,
        price,
    )
    scanner.take(
        rf"(?:每晚|一晚|每天)?\s*(?:¥)?(?<![\d.])(?P<n>{_PRICE_NUM})\s*(?:元|块钱|块|rmb)?\s*"
        r"(?:以内|以下|之内|内|封顶)" + _PER_NIGHT_ZH,
        price,
    )
    scanner.take(
        r"\b(?:under|below|less than|at most|no more than|not more than|no higher than|not over"
        r"|not exceeding|max(?:imum)?(?: of)?|up to|within|cheaper than|priced under"
        r"|budget(?: of| is)?)\s*(?:¥|rmb|cny)?\s*"
        r"(?P<n>\d+(?:,\d{3})*(?:\.\d+)?\s*k\b|\d+(?:,\d{3})*)\s*(?:yuan|rmb|cny|kuai|元)?"
        + _PER_NIGHT
        + _NOT_A_PRICE,
        price,
    )
    scanner.take(
        r"(?:¥\s*)?(?<![\d.])(?P<n>\d+(?:\.\d+)?\s*k\b|\d+(?:,\d{3})*)\s*(?:yuan|rmb|cny|kuai)?"
        + _PER_NIGHT
        + r"\s*(?:or less|or under|or below|or cheaper|max|at most|tops)\b",
        price,
    )
    scanner.take(
        r"(?:至少|最少|不低于|起码)?\s*(?P<n>[1-5一二两三四五])\s*(?:星级|星|钻)"
        r"\s*(?:及以上|或以上|以上|起|及更高)?",
        stars,
    )
    scanner.take(
        r"\b(?:at least\s+)?(?P<n>[1-5]|one|two|three|four|five)\s*[- ]?\s*stars?\b"
        r"(?:\s*(?:or|and)\s*(?:above|more|higher|better|up))?\+?",
        stars,
    )
    scanner.take(r"\b(?P<n>[1-5])\+\s*stars?\b", stars)
    scanner.take(rf"(?P<d>{NUM})\s*天\s*(?P<n>{NUM})\s*晚", nights)
    scanner.take(rf"(?:住|入住|待|呆)?\s*(?P<n>{NUM})\s*个?\s*(?:晚上|晚|夜)", nights)
    scanner.take(rf"住\s*(?P<n>{NUM})\s*天", nights)
    scanner.take(rf"\b(?P<n>\d+|{EN_NUM}|a|an)\s*[- ]?nights?\b(?!\s*(?:trains?|flights?))", nights)
    scanner.take(rf"\bstay(?:ing)?\s+(?:for\s+)?(?P<n>\d+|{EN_NUM})\s+(?:days|nights)\b", nights)
