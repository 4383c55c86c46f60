"""A small booking bot that speaks EvalSite's ``http`` system protocol.

It is a starting point for teams, and the proof that the protocol works end to
end: EvalSite POSTs each user message here, the bot searches and books through
EvalSite's booking API with the conversation's token, and answers
``{"reply": ..., "end": ...}``.

Only the Python standard library is used. Run it with::

    python examples/http_system/bot.py --port 8765

It understands plain requests in Chinese or English ("明天从北京到上海的机票",
"a train from Beijing to Tianjin tomorrow", "在上海住两晚，12月3日入住"), asks for
what is missing, proposes the earliest option, and books it when the user agrees.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

API_TIMEOUT = 5.0

DOMAIN_WORDS = {
    "flight": ("机票", "航班", "飞机", "飞", "flight", "fly", "plane"),
    "train": ("火车", "高铁", "动车", "列车", "train"),
    "hotel": ("酒店", "宾馆", "住", "hotel", "room", "stay"),
}
YES = (
    "好的",
    "好",
    "是的",
    "可以",
    "确认",
    "订吧",
    "行",
    "yes",
    "ok",
    "sure",
    "book it",
    "please do",
)
NO = ("不要", "不行", "换一个", "别的", "no", "another", "something else")
BYE = ("没有了", "再见", "不用了", "bye", "no thanks", "that's all", "nothing else")
CHINESE_NUMBERS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7}
REQUIRED = {
    "flight": ("from_city", "to_city", "date"),
    "train": ("from_city", "to_city", "date"),
    "hotel": ("city", "date", "nights"),
}

CLASS_NAMES_ZH = {
    "flight": {"economy": "经济舱", "business": "商务舱", "first": "头等舱"},
    "train": {
        "second": "二等座",
        "first": "一等座",
        "business": "商务座",
        "hard_seat": "硬座",
        "hard_sleeper": "硬卧",
        "soft_sleeper": "软卧",
    },
    "hotel": {"king": "大床房", "twin": "双床房", "suite": "套房"},
}

QUESTIONS = {
    "domain": ("请问您要订机票、火车票还是酒店？", "Would you like a flight, a train or a hotel?"),
    "from_city": ("请问从哪个城市出发？", "Which city are you leaving from?"),
    "to_city": ("请问要去哪个城市？", "Which city are you going to?"),
    "city": ("请问住哪个城市？", "In which city would you like to stay?"),
    "date": ("请问是哪一天？", "On which day?"),
    "nights": ("请问住几晚？", "For how many nights?"),
}


class BookingApi:
    """EvalSite's booking API, called with one conversation's token."""

    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        self.token = token

    def call(self, endpoint: str, params: dict[str, Any] | None = None, body: Any = None) -> Any:
        url = self.base_url + endpoint
        if params:
            url += "?" + urllib.parse.urlencode(params)
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method="POST" if data else "GET")
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=API_TIMEOUT) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            problem = json.loads(error.read() or b"{}").get("error", {})
            raise ApiRefusal(problem.get("code", "error"), problem.get("message", "")) from None


class ApiRefusal(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Dialogue:
    """What the bot remembers of one conversation."""

    slots: dict[str, Any] = field(default_factory=dict)
    offers: list[dict[str, Any]] = field(default_factory=list)
    proposed: int = -1


def say(lang: str, zh: str, en: str) -> str:
    return zh if lang == "zh" else en


def language_of(text: str, default: str) -> str:
    if re.search(r"[\u4e00-\u9fff]", text):
        return "zh"
    return "en" if re.search(r"[A-Za-z]{2,}", text) else default


def has_any(text: str, words: tuple[str, ...]) -> bool:
    lowered = text.lower()
    return any(re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", lowered) for word in words)


def read_date(text: str, today: dt.date) -> dt.date | None:
    lowered = text.lower()
    iso = re.search(r"\d{4}-\d{2}-\d{2}", lowered)
    if iso:
        return dt.date.fromisoformat(iso.group())
    month_day = re.search(r"(\d{1,2})月(\d{1,2})[日号]", text)
    if month_day:
        month, day = int(month_day.group(1)), int(month_day.group(2))
        year = today.year + (1 if month < today.month else 0)
        return dt.date(year, month, day)
    for words, days in (
        (("后天", "day after tomorrow"), 2),
        (("明天", "tomorrow"), 1),
        (("今天", "today", "tonight"), 0),
    ):
        if any(word in lowered for word in words):
            return today + dt.timedelta(days=days)
    return None


def read_nights(text: str) -> int | None:
    match = re.search(r"(\d+|[一两二三四五六七])\s*(?:个)?(?:晚|nights?)", text.lower())
    if match is None:
        return None
    number = match.group(1)
    return int(number) if number.isdigit() else CHINESE_NUMBERS[number]


def read_cities(text: str, cities: list[dict[str, str]]) -> list[tuple[int, str, str]]:
    """(position, name, the words before it) of every city named in the text, in order."""
    found = []
    lowered = text.lower()
    for city in cities:
        for name in (city["name"], city["name_en"].lower()):
            position = lowered.find(name)
            if position >= 0:
                found.append((position, city["name"], lowered[max(0, position - 5) : position]))
                break
    return sorted(found)


def understand(
    text: str, slots: dict[str, Any], today: dt.date, cities: list[dict[str, str]]
) -> None:
    for domain, words in DOMAIN_WORDS.items():
        if has_any(text, words):
            slots["domain"] = domain
            break
    date = read_date(text, today)
    if date is not None:
        slots["date"] = date.isoformat()
    nights = read_nights(text)
    if nights is not None:
        slots["nights"] = nights
    named = read_cities(text, cities)
    if slots.get("domain") == "hotel" and named:
        slots["city"] = named[-1][1]
        return
    for _position, name, before in named:
        if re.search(r"(到|去|至|to)\s*$", before):
            slots["to_city"] = name
        elif re.search(r"(从|由|from)\s*$", before) or "from_city" not in slots:
            slots["from_city"] = name
        else:
            slots["to_city"] = name


def search(api: BookingApi, slots: dict[str, Any]) -> list[dict[str, Any]]:
    if slots["domain"] == "hotel":
        params = {"city": slots["city"], "check_in": slots["date"], "nights": slots["nights"]}
        return list(api.call("hotels", params)["hotels"])
    params = {"from_city": slots["from_city"], "to_city": slots["to_city"], "date": slots["date"]}
    endpoint = "flights" if slots["domain"] == "flight" else "trains"
    return list(api.call(endpoint, params)[endpoint])


def cheapest_option(offer: dict[str, Any]) -> tuple[str, int]:
    fares = offer.get("cabins") or offer.get("seats") or offer.get("rooms") or {}
    left = [
        (fare["price"], name)
        for name, fare in fares.items()
        if fare.get("seats_left", fare.get("rooms_left", 0)) > 0
    ]
    price, name = min(left)
    return name, price


def describe(offer: dict[str, Any], domain: str, lang: str) -> str:
    option, price = cheapest_option(offer)
    if lang == "zh":
        option = CLASS_NAMES_ZH[domain].get(option, option)
    if domain == "hotel":
        name = offer["name"] if lang == "zh" else offer["name_en"]
        return say(
            lang, f"{name}，{option}，每晚{price}元", f"{name}, {option}, {price} yuan a night"
        )
    times = f"{offer['number']} {offer['depart']}–{offer['arrive']}"
    return say(lang, f"{times}，{option}，{price}元", f"{times}, {option}, {price} yuan")


def propose(dialogue: Dialogue, lang: str) -> str:
    found = describe(dialogue.offers[dialogue.proposed], dialogue.slots["domain"], lang)
    return say(lang, f"为您找到：{found}。要预订吗？", f"I found {found}. Shall I book it?")


def book(api: BookingApi, dialogue: Dialogue, lang: str) -> str:
    offer = dialogue.offers[dialogue.proposed]
    option, _price = cheapest_option(offer)
    body: dict[str, Any] = {
        "domain": dialogue.slots["domain"],
        "item_id": offer["id"],
        "option": option,
    }
    if body["domain"] == "hotel":
        body.update(check_in=offer["check_in"], nights=offer["nights"])
    try:
        reference = api.call("book", body=body)["booking"]["reference"]
    except ApiRefusal as refusal:
        if refusal.code == "sold_out" and dialogue.proposed + 1 < len(dialogue.offers):
            dialogue.proposed += 1
            return say(lang, "刚刚售完了。", "That one just sold out. ") + propose(dialogue, lang)
        return say(lang, f"抱歉，预订失败：{refusal}", f"Sorry, the booking failed: {refusal}")
    dialogue.slots, dialogue.offers, dialogue.proposed = {}, [], -1
    return say(
        lang,
        f"已为您预订，订单号 {reference}。还需要别的帮助吗？",
        f"Booked. Your reference is {reference}. Anything else?",
    )


class Bot:
    """Answers protocol messages; one Dialogue per EvalSite session."""

    def __init__(self) -> None:
        self.dialogues: dict[int, Dialogue] = {}
        self.cities: dict[str, list[dict[str, str]]] = {}
        self.lock = threading.Lock()

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        api = BookingApi(message["booking_api"], message["token"])
        text = str(message["message"])
        lang = language_of(text, str(message.get("lang", "zh")))
        today = dt.date.fromisoformat(message["today"])
        with self.lock:
            dialogue = self.dialogues.setdefault(int(message["session"]), Dialogue())
            if message["booking_api"] not in self.cities:
                self.cities[message["booking_api"]] = api.call("cities")["cities"]
            cities = self.cities[message["booking_api"]]
        # Farewells first, then refusals: "不行" holds "行" and "no thanks" holds "no".
        if has_any(text, BYE):
            return {"reply": say(lang, "好的，再见！", "Goodbye!"), "end": True}
        if dialogue.offers and has_any(text, NO):
            dialogue.proposed = (dialogue.proposed + 1) % len(dialogue.offers)
            return {"reply": propose(dialogue, lang), "end": False}
        if dialogue.offers and has_any(text, YES):
            return {"reply": book(api, dialogue, lang), "end": False}
        understand(text, dialogue.slots, today, cities)
        return {"reply": self.next_step(api, dialogue, lang), "end": False}

    @staticmethod
    def next_step(api: BookingApi, dialogue: Dialogue, lang: str) -> str:
        slots = dialogue.slots
        if "domain" not in slots:
            return say(lang, *QUESTIONS["domain"])
        for slot in REQUIRED[slots["domain"]]:
            if slot not in slots:
                return say(lang, *QUESTIONS[slot])
        try:
            dialogue.offers = search(api, slots)
        except ApiRefusal as refusal:
            return say(lang, f"抱歉，查询失败：{refusal}", f"Sorry, the search failed: {refusal}")
        if not dialogue.offers:
            slots.pop("date", None)
            return say(
                lang, "那天没有可订的，换一天可以吗？", "Nothing is left that day. Another day?"
            )
        dialogue.proposed = 0
        return propose(dialogue, lang)


def handler_for(bot: Bot) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_json(200, {"status": "ok"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                message = json.loads(self.rfile.read(length))
                lang = str(message.get("lang", "zh"))
            except (ValueError, AttributeError) as error:
                self.send_json(400, {"error": f"not a protocol message: {error}"})
                return
            try:
                answer = bot.answer(message)
            except (KeyError, TypeError, ValueError) as error:
                self.send_json(400, {"error": f"not a protocol message: {error}"})
                return
            except (OSError, ApiRefusal):
                # A turn the judge can rate is better than no answer at all.
                apology = say(
                    lang, "抱歉，系统出了点问题，请再说一次。", "Sorry, something went wrong."
                )
                answer = {"reply": apology, "end": False}
            self.send_json(200, answer)

        def send_json(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    options = parser.parse_args()
    server = ThreadingHTTPServer((options.host, options.port), handler_for(Bot()))
    print(f"booking bot listening on http://{options.host}:{options.port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.server_close()


if __name__ == "__main__":
    main()
