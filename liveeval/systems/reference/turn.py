"""The built-in reference booking system: a rule-based slot-filling dialogue policy.

It books flights, trains and hotels in the booking world through the ``World`` protocol
only, and keeps everything it needs between messages in a JSON-serialisable ``state``
(another server process may handle the next message). ``docs/booking.md`` describes the
behaviour; in short:

* intents are taken in the order the user names them, slots from any utterance;
* missing required slots are asked one at a time;
* when everything is known it searches, shows up to three options and recommends one,
  offering the closest alternative when nothing matches;
* it books only on a confirmation of a shown option, so a second "yes" cannot book twice.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from typing import Any

from liveeval.booking.offers import (
    BookingError,
    Domain,
    World,
)
from liveeval.systems.reference.filling import SlotFilling
from liveeval.systems.reference.search import minutes_of, search
from liveeval.systems.reference.state import (
    Dialogue,
    Intent,
    Option,
    PolicyTurn,
    effective_slots,
    spans_of,
)
from liveeval.systems.reference.wording import (
    CAPABILITIES_EN,
    CAPABILITIES_ZH,
    DOMAIN_EN,
    DOMAIN_ZH,
    QUESTIONS_EN,
    QUESTIONS_ZH,
    UNSUPPORTED_EN,
    UNSUPPORTED_ZH,
    class_text,
    option_text,
    request_text,
    short_text,
    spans_text,
)
from liveeval.systems.understanding.cities import CITY_EN
from liveeval.systems.understanding.language import detect_lang
from liveeval.systems.understanding.reading import read
from liveeval.systems.understanding.times import ANY_TIME

TRIP_REQUIRED = ("from_city", "to_city", "date", "time")


HOTEL_REQUIRED = ("city", "check_in", "nights")


WHERE_AND_WHEN = {"date", "city", "from_city", "to_city", "stay_city"}
"""Hits that an off-topic question can carry ("the weather in Beijing tomorrow")."""


BOOKING_WORDS = r"订|票|预定|\bbook|\bticket|\breserv"
"""A wish to book without saying what: answered by asking for the domain."""


def respond(
    world: World, state: dict[str, Any], user_text: str, *, default_lang: str = "zh"
) -> PolicyTurn:
    """Answer one user message; ``state`` is ``{}`` on the first turn."""
    dialogue = Dialogue.load(state)
    lang = detect_lang(user_text, dialogue.lang or default_lang)
    dialogue.lang = lang
    turn = _Turn(world, dialogue, read(user_text, world.today), lang)
    turn.run()
    return PolicyTurn(
        text="".join(turn.parts).strip(), end=dialogue.ended, state=dialogue.dump(), lang=lang
    )


class _Turn(SlotFilling):
    """Handles one user message: updates the dialogue and collects the reply."""

    # -- the order in which a message is understood

    def run(self) -> None:
        if self.d.ended:
            self.say("本次对话已经结束，感谢使用。", "This conversation has ended. Thank you.")
            return
        if self._ends() or self._cancels() or self._declines() or self._guides():
            return
        if self.r.unknown_places and not any(hit.kind.endswith("city") for hit in self.r.hits):
            places = "、".join(self.r.unknown_places)
            self.say(
                f"抱歉，{places}不在可预订的城市范围内。可预订的城市有：{'、'.join(CITY_EN)}。",
                f"Sorry, {', '.join(self.r.unknown_places).title()} is not covered. I can book "
                f"for {', '.join(CITY_EN.values())}.",
            )
        self._open_intents()
        self._route()
        current = self.d.current()
        if current is None:
            self._idle()
        else:
            self._act(current)

    def _ends(self) -> bool:
        r, d = self.r, self.d
        # "没有了"/"谢谢" close the dialogue only once nothing is in progress; "再见" always does.
        done = d.current() is None and not r.has_content()
        if not (r.goodbye or (done and (r.farewell or (r.thanks and bool(d.intents))))):
            return False
        d.ended = True
        d.pending = None
        self.say(
            "好的，感谢您的使用，祝您旅途愉快，再见！", "You're welcome. Have a good trip, goodbye!"
        )
        return True

    def _cancels(self) -> bool:
        if not self.r.cancel:
            return False
        domain = self.r.domains[0] if self.r.domains else None
        current = self.d.current()
        if current is not None and current.replaces is not None:
            self._drop(current)
            current = None
        target = self.d.last_booked(domain)
        if target is not None and target.booking is not None:
            reference = target.booking["reference"]
            try:
                self.world.cancel(reference)
            except BookingError as error:
                self.say(
                    f"抱歉，订单{reference}取消失败：{error.message}。",
                    f"Sorry, booking {reference} could not be cancelled: {error.message}.",
                )
                return True
            target.status = "cancelled"
            self.say(
                f"已为您取消订单{reference}（{option_text(target.booking['option'], 'zh')}）。",
                f"Booking {reference} ({option_text(target.booking['option'], 'en')}) "
                "is cancelled.",
            )
        elif current is not None:
            self._drop(current)
            self.say(
                f"好的，已取消本次{DOMAIN_ZH[current.domain]}预订。",
                f"OK, I've dropped the {DOMAIN_EN[current.domain]} request.",
            )
        else:
            self.say("您目前没有可以取消的预订。", "You have no booking to cancel.")
        self._advance(intro=False)
        return True

    def _declines(self) -> bool:
        current = self.d.current()
        if current is None or not self.r.decline or self.r.has_content():
            return False
        self._drop(current)
        self.say(
            f"好的，不订{DOMAIN_ZH[current.domain]}了。",
            f"OK, I won't book the {DOMAIN_EN[current.domain]}.",
        )
        self._advance(intro=False)
        return True

    def _guides(self) -> bool:
        """Guidance for what the booking world does not cover; True when that is the answer."""
        r = self.r
        if r.unsupported and not r.mentions:
            if r.unsupported == "change":
                self.say(
                    "如需改签，请先说“取消”取消原订单，再告诉我新的行程。",
                    "To change a booking, say 'cancel' and then tell me the new trip.",
                )
            else:
                self.say(
                    f"抱歉，暂不支持{UNSUPPORTED_ZH[r.unsupported]}。{CAPABILITIES_ZH}",
                    f"Sorry, I can't help with {UNSUPPORTED_EN[r.unsupported]}. {CAPABILITIES_EN}",
                )
        elif r.off_topic and not r.mentions and all(hit.kind in WHERE_AND_WHEN for hit in r.hits):
            self.say(
                f"抱歉，这个我帮不上忙。{CAPABILITIES_ZH}",
                f"Sorry, I can't help with that. {CAPABILITIES_EN}",
            )
        elif (r.help or r.greeting) and not r.has_content():
            if r.greeting:
                self.say("您好！", "Hello!")
            if r.help or not self.d.intents:
                self.say(CAPABILITIES_ZH, CAPABILITIES_EN)
        else:
            return False
        self._reask()
        return True

    # -- acting on the current intent

    def _missing(self, intent: Intent) -> str | None:
        slots = effective_slots(self.d, intent)
        required = TRIP_REQUIRED if intent.is_trip else HOTEL_REQUIRED
        return next((name for name in required if name not in slots), None)

    def _act(self, current: Intent) -> None:
        r, d = self.r, self.d
        changed = current in self.changed
        pending = self._pending_for(current)
        if pending == "confirm" and current.options:
            self._answer_proposal(current, changed)
            return
        if pending == "time" and r.open_answer and "time" not in current.slots:
            current.slots["time"] = [list(span) for span in ANY_TIME]
            changed = True
        if pending == "nights" and r.number_only and not changed and 0 < r.number_only <= 30:
            current.slots["nights"] = r.number_only
            changed = True
        missing = self._missing(current)
        if missing is not None:
            if not (changed or self.created or r.confirm or r.thanks or self.parts):
                self.say("抱歉，我没有听明白。", "Sorry, I didn't catch that.")
            self._ask(current, missing, recap=changed or bool(self.created))
            return
        if d.pending == "more" and not (changed or self.created):
            self._idle()
            return
        self._propose(current)

    def _answer_proposal(self, current: Intent, changed: bool) -> None:
        r = self.r
        if changed:
            self._propose(current)
            return
        picked = self._picked(current)
        if picked is not None:
            self._book(current, picked)
        elif r.confirm or r.open_answer:
            self._book(current, current.proposed)
        elif r.cheaper:
            proposed = current.options[current.proposed]
            current.slots["prefer"] = "cheapest"
            slots = effective_slots(self.d, current)
            found = search(self.world, current.domain, slots, current.skip)
            cheapest = found.options[found.proposed] if found else proposed
            if cheapest["price"] < proposed["price"]:
                self._propose(current)
            else:
                self.say("这已经是最便宜的选择了。", "That is already the cheapest option.")
                self._ask_confirm(current)
        elif r.deny:
            current.skip.append(current.options[current.proposed]["id"])
            self._propose(current)
        elif r.ordinal is not None:
            count = len(current.options)
            self.say(
                f"目前只有{count}个选择，请说“第一个”到“第{count}个”。",
                f"There {'is' if count == 1 else 'are'} only {count} "
                f"option{'' if count == 1 else 's'} on the list.",
            )
            self._ask_confirm(current)
        else:
            if self.created:
                later = "、".join(DOMAIN_ZH[i.domain] for i in self.created)
                later_en = " and ".join(DOMAIN_EN[i.domain] for i in self.created)
                self.say(f"好的，稍后为您预订{later}。", f"OK, I'll book the {later_en} next.")
            elif not self.parts:
                self.say("抱歉，我没有听明白。", "Sorry, I didn't catch that.")
            self._ask_confirm(current)

    def _picked(self, current: Intent) -> int | None:
        r, options = self.r, current.options
        for index, option in enumerate(options):
            names = [option.get("number"), option.get("name"), option.get("name_en")]
            # Word edges keep "G11" from matching "G113".
            if any(
                name and re.search(rf"(?<![a-z0-9]){re.escape(str(name).lower())}(?![0-9])", r.text)
                for name in names
            ):
                return index
        position = r.ordinal or (r.number_only if r.number_only and not r.hits else None)
        if position is not None:
            index = len(options) - 1 if position == -1 else position - 1
            return index if 0 <= index < len(options) else None
        by: dict[str, Callable[[Option], Any]] = {
            "earliest": lambda o: minutes_of(o["depart"]) if "depart" in o else 0,
            "latest": lambda o: -minutes_of(o["depart"]) if "depart" in o else 0,
            "cheapest": lambda o: o["price"],
            "best": lambda o: -o.get("rating", 0),
        }
        superlative = r.superlative
        if superlative in by:
            best = min(options, key=by[superlative])
            return options.index(best)
        return None

    def _book(self, current: Intent, index: int) -> None:
        option = current.options[index]
        try:
            if current.domain == "hotel":
                receipt = self.world.book(
                    "hotel",
                    option["id"],
                    option["option"],
                    check_in=dt.date.fromisoformat(option["check_in"]),
                    nights=int(option["nights"]),
                )
            else:
                domain: Domain = "flight" if current.domain == "flight" else "train"
                receipt = self.world.book(domain, option["id"], option["option"])
        except BookingError as error:
            current.skip.append(option["id"])
            self.say(
                f"抱歉，{short_text(option, 'zh')}预订失败：{error.message}。",
                f"Sorry, {short_text(option, 'en')} could not be booked: {error.message}.",
            )
            self._propose(current)
            return
        current.status = "booked"
        current.booking = {"reference": receipt.reference, "option": option}
        current.options = []
        self.say(
            f"已为您预订：{option_text(option, 'zh')}，订单号：{receipt.reference}。",
            f"Booked: {option_text(option, 'en')}. Your booking reference is {receipt.reference}.",
        )
        if current.replaces is not None:
            self._cancel_replaced(current.replaces["reference"])
            current.replaces = None
        self._advance(intro=True)

    def _cancel_replaced(self, reference: str) -> None:
        try:
            self.world.cancel(reference)
        except BookingError as error:
            self.say(
                f"原订单{reference}取消失败：{error.message}。",
                f"The earlier booking {reference} could not be cancelled: {error.message}.",
            )
            return
        self.say(f"原订单{reference}已取消。", f"The earlier booking {reference} is cancelled.")

    def _advance(self, *, intro: bool) -> None:
        following = self.d.current()
        if following is None:
            self.d.pending = "more"
            self.d.asked = None
            self.say(QUESTIONS_ZH["more"], QUESTIONS_EN["more"])
            return
        if intro:
            self.say(
                f"接下来为您预订{DOMAIN_ZH[following.domain]}。",
                f"Next, the {DOMAIN_EN[following.domain]}.",
            )
        missing = self._missing(following)
        if missing is None:
            self._propose(following)
        else:
            self._ask(following, missing, recap=True)

    def _ask(self, intent: Intent, slot: str, *, recap: bool) -> None:
        self.d.pending = slot
        self.d.asked = self.d.intents.index(intent)
        known = effective_slots(self.d, intent)
        if recap and any(key in known for key in (*TRIP_REQUIRED, *HOTEL_REQUIRED)):
            self.say(
                f"好的，{request_text(intent, known, 'zh')}。",
                f"OK, {request_text(intent, known, 'en')}.",
            )
        self.say(QUESTIONS_ZH[slot], QUESTIONS_EN[slot])

    def _ask_confirm(self, current: Intent) -> None:
        option = current.options[current.proposed]
        self.say(
            f"请问要预订{short_text(option, 'zh')}吗？",
            f"Shall I book {short_text(option, 'en')}?",
        )

    def _reask(self) -> None:
        current = self.d.current()
        if current is None:
            if self.d.intents:
                self.d.pending = "more"
                self.say(QUESTIONS_ZH["more"], QUESTIONS_EN["more"])
            return
        if self._pending_for(current) == "confirm" and current.options:
            self._ask_confirm(current)
            return
        missing = self._missing(current)
        if missing is None:
            self._propose(current)
        else:
            self._ask(current, missing, recap=False)

    def _idle(self) -> None:
        d, r = self.d, self.r
        if d.draft and not d.intents:
            d.pending = "domain"
            self.say(QUESTIONS_ZH["domain"], QUESTIONS_EN["domain"])
            return
        if not d.intents and re.search(BOOKING_WORDS, r.text):
            d.pending = "domain"
            self.say(QUESTIONS_ZH["domain"], QUESTIONS_EN["domain"])
            return
        if not d.intents:
            if not self.parts:
                self.say(f"您好！{CAPABILITIES_ZH}", f"Hello! {CAPABILITIES_EN}")
            self.say("请问有什么可以帮您？", "What can I do for you?")
            return
        booked = d.last_booked()
        if r.confirm and booked is not None and booked.booking is not None:
            reference = booked.booking["reference"]
            self.say(
                f"已经为您预订好了（订单号：{reference}），不会重复预订。",
                f"That is already booked (reference {reference}); I won't book it twice.",
            )
        elif not self.parts:
            self.say("抱歉，我没有听明白。", "Sorry, I didn't catch that.")
        d.pending = "more"
        d.asked = None
        self.say(QUESTIONS_ZH["more"], QUESTIONS_EN["more"])

    # -- proposing

    def _relaxed_text(self, intent: Intent, slots: dict[str, Any], names: Sequence[str]) -> str:
        zh, en = [], []
        for name in names:
            if name == "time":
                spans = spans_of(slots["time"])
                zh.append(f"{spans_text(spans, 'zh')}出发")
                en.append(f"leaving {spans_text(spans, 'en')}")
            elif name == "price":
                per_night = intent.domain == "hotel"
                zh.append(f"{'每晚' if per_night else ''}{slots['max_price']}元以内")
                en.append(f"at or under {slots['max_price']} yuan{' a night' if per_night else ''}")
            elif name == "class":
                wanted = slots["cabin" if intent.domain == "flight" else "seat"]
                zh.append(class_text(intent.domain, wanted, "zh"))
                en.append(f"in {class_text(intent.domain, wanted, 'en')}")
            elif name == "type":
                zh.append(f"{slots['train_type']}字头")
                en.append(f"on {slots['train_type']} trains")
            elif name == "stars":
                zh.append(f"{slots['min_stars']}星及以上")
                en.append(f"with {slots['min_stars']} stars or more")
            elif name == "room":
                zh.append(class_text("hotel", slots["room_type"], "zh"))
                en.append(f"with a {class_text('hotel', slots['room_type'], 'en')}")
        noun_zh = {"flight": "航班", "train": "车次", "hotel": "酒店"}[intent.domain]
        return (
            f"，没有{'、'.join(zh)}的{noun_zh}。"
            if self.zh
            else f" There is no {intent.domain} {' and '.join(en)}."
        )

    def _propose(self, intent: Intent) -> None:
        missing = self._missing(intent)
        if missing is not None:
            intent.options = []
            self._ask(intent, missing, recap=True)
            return
        slots = effective_slots(self.d, intent)
        found = search(self.world, intent.domain, slots, intent.skip)
        index = self.d.intents.index(intent)
        if found is None:
            self._nothing_found(intent, slots)
            return
        intent.options = found.options
        intent.proposed = found.proposed
        self.d.pending = "confirm"
        self.d.asked = index
        request_zh = request_text(intent, slots, "zh")
        request_en = request_text(intent, slots, "en")
        relaxed = self._relaxed_text(intent, slots, found.relaxed) if found.relaxed else ""
        several = len(found.options) > 1
        if found.relaxed:
            lead_zh = "最接近的选择：" if several else "最接近的是："
            lead_en = "The closest options are:" if several else "The closest is:"
        else:
            lead_zh = "，有以下选择：" if several else "，为您找到："
            lead_en = "Here is what I found:"
        self.say(
            f"帮您查询了{request_zh}{relaxed}{lead_zh}",
            f"I looked up {request_en}.{relaxed} {lead_en}",
        )
        recommended = found.options[found.proposed]
        if several:
            lines_zh = "".join(
                f"\n{n}. {option_text(option, 'zh')}" for n, option in enumerate(found.options, 1)
            )
            lines_en = "".join(
                f"\n{n}. {option_text(option, 'en')}" for n, option in enumerate(found.options, 1)
            )
            self.say(
                f"{lines_zh}\n推荐第{found.proposed + 1}个（{short_text(recommended, 'zh')}），"
                "要预订吗？也可以说“第二个”或“最便宜的”。",
                f"{lines_en}\nI recommend option {found.proposed + 1} "
                f"({short_text(recommended, 'en')}). Shall I book it? You can also say "
                '"the second one" or "the cheapest".',
            )
        else:
            self.say(
                f"{option_text(recommended, 'zh')}。要预订吗？",
                f"{option_text(recommended, 'en')}. Shall I book it?",
            )

    def _nothing_found(self, intent: Intent, slots: dict[str, Any]) -> None:
        retried = bool(intent.skip)
        intent.options = []
        intent.skip = []
        request_zh = request_text(intent, slots, "zh")
        request_en = request_text(intent, slots, "en")
        if retried:
            self.say(
                f"抱歉，{request_zh}没有其他可预订的选择了。",
                f"Sorry, there are no other {request_en} available.",
            )
        else:
            self.say(
                f"抱歉，{request_zh}没有可预订的选择（可查询的日期约为一个月内）。",
                f"Sorry, there are no {request_en} available (dates within about a month).",
            )
        day_slot = "check_in" if intent.domain == "hotel" else "date"
        intent.slots.pop(day_slot, None)
        self.say("您可以换一个日期试试。", "You could try another day.")
        self._ask(intent, day_slot, recap=False)
