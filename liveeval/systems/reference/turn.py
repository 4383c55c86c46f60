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
from collections.abc import Callable
from typing import Any

from liveeval.booking.offers import (
    BookingError,
    Domain,
    World,
)
from liveeval.systems.reference import wording
from liveeval.systems.reference.filling import SlotFilling
from liveeval.systems.reference.search import Proposal, minutes_of, search
from liveeval.systems.reference.state import (
    Dialogue,
    Intent,
    Option,
    PolicyTurn,
    effective_slots,
)
from liveeval.systems.reference.wording import (
    DOMAIN,
    QUESTIONS,
    cities_text,
    domains_text,
    option_text,
    places_text,
    relaxed_text,
    request_text,
    short_text,
)
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
            self.say(wording.ENDED)
            return
        if self._ends() or self._cancels() or self._declines() or self._guides():
            return
        if self.r.unknown_places and not any(hit.kind.endswith("city") for hit in self.r.hits):
            self.say(
                wording.NOT_COVERED,
                places=places_text(self.r.unknown_places, self.lang),
                cities=cities_text(self.lang),
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
        self.say(wording.GOODBYE)
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
                self.say(wording.CANCEL_FAILED, reference=reference, reason=error.message)
                return True
            target.status = "cancelled"
            option = option_text(target.booking["option"], self.lang)
            self.say(wording.CANCELLED, reference=reference, option=option)
        elif current is not None:
            self._drop(current)
            self.say(wording.REQUEST_DROPPED, domain=DOMAIN[current.domain].text(self.lang))
        else:
            self.say(wording.NOTHING_TO_CANCEL)
        self._advance(intro=False)
        return True

    def _declines(self) -> bool:
        current = self.d.current()
        if current is None or not self.r.decline or self.r.has_content():
            return False
        self._drop(current)
        self.say(wording.DECLINED, domain=DOMAIN[current.domain].text(self.lang))
        self._advance(intro=False)
        return True

    def _guides(self) -> bool:
        """Guidance for what the booking world does not cover; True when that is the answer."""
        r = self.r
        if r.unsupported and not r.mentions:
            if r.unsupported == "change":
                self.say(wording.HOW_TO_CHANGE)
            else:
                self.say(
                    wording.UNSUPPORTED_REQUEST,
                    what=wording.UNSUPPORTED[r.unsupported].text(self.lang),
                    capabilities=wording.CAPABILITIES.text(self.lang),
                )
        elif r.off_topic and not r.mentions and all(hit.kind in WHERE_AND_WHEN for hit in r.hits):
            self.say(wording.OFF_TOPIC, capabilities=wording.CAPABILITIES.text(self.lang))
        elif (r.help or r.greeting) and not r.has_content():
            if r.greeting:
                self.say(wording.HELLO)
            if r.help or not self.d.intents:
                self.say(wording.CAPABILITIES)
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
        if pending == "time" and "time" not in current.slots and not (r.deny or r.cancel):
            # Asked once and not answered ("好的", "anytime", "商务舱"): any time will do,
            # and the options on offer say more than the same question again.
            current.slots["time"] = [list(span) for span in ANY_TIME]
            changed = True
        if pending == "nights" and r.number_only and not changed and 0 < r.number_only <= 30:
            current.slots["nights"] = r.number_only
            changed = True
        missing = self._missing(current)
        if missing is not None:
            if not (changed or self.created or r.confirm or r.thanks or self.parts):
                self.say(wording.NOT_UNDERSTOOD)
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
                # The search just made is the one proposing would make: show its options.
                self._show(current, slots, found)
            else:
                self.say(wording.ALREADY_CHEAPEST)
                self._ask_confirm(current)
        elif r.deny:
            current.skip.append(current.options[current.proposed]["id"])
            self._propose(current)
        elif r.ordinal is not None:
            count = len(current.options)
            be, s = ("is", "") if count == 1 else ("are", "s")
            self.say(wording.ONLY_SO_MANY, count=count, be=be, s=s)
            self._ask_confirm(current)
        else:
            if self.created:
                later = domains_text([intent.domain for intent in self.created], self.lang)
                self.say(wording.BOOK_LATER, domains=later)
            elif not self.parts:
                self.say(wording.NOT_UNDERSTOOD)
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
                wording.BOOKING_FAILED, option=short_text(option, self.lang), reason=error.message
            )
            self._propose(current)
            return
        current.status = "booked"
        current.booking = {"reference": receipt.reference, "option": option}
        current.options = []
        self.say(wording.BOOKED, option=option_text(option, self.lang), reference=receipt.reference)
        if current.replaces is not None:
            self._cancel_replaced(current.replaces["reference"])
            current.replaces = None
        self._advance(intro=True)

    def _cancel_replaced(self, reference: str) -> None:
        try:
            self.world.cancel(reference)
        except BookingError as error:
            self.say(wording.REPLACED_CANCEL_FAILED, reference=reference, reason=error.message)
            return
        self.say(wording.REPLACED_CANCELLED, reference=reference)

    def _advance(self, *, intro: bool) -> None:
        following = self.d.current()
        if following is None:
            self.d.pending = "more"
            self.d.asked = None
            self.say(QUESTIONS["more"])
            return
        if intro:
            self.say(wording.NEXT, domain=DOMAIN[following.domain].text(self.lang))
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
            self.say(wording.RECAP, request=request_text(intent, known, self.lang))
        self.say(QUESTIONS[slot])

    def _ask_confirm(self, current: Intent) -> None:
        option = current.options[current.proposed]
        self.say(wording.SHALL_I_BOOK, option=short_text(option, self.lang))

    def _reask(self) -> None:
        current = self.d.current()
        if current is None:
            if self.d.intents:
                self.d.pending = "more"
                self.say(QUESTIONS["more"])
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
            self.say(QUESTIONS["domain"])
            return
        if not d.intents and re.search(BOOKING_WORDS, r.text):
            d.pending = "domain"
            self.say(QUESTIONS["domain"])
            return
        if not d.intents:
            if not self.parts:
                capabilities = wording.CAPABILITIES.text(self.lang)
                self.say(wording.HELLO_AND_CAPABILITIES, capabilities=capabilities)
            self.say(wording.WHAT_CAN_I_DO)
            return
        booked = d.last_booked()
        if r.confirm and booked is not None and booked.booking is not None:
            reference = booked.booking["reference"]
            self.say(wording.ALREADY_BOOKED, reference=reference)
        elif not self.parts:
            self.say(wording.NOT_UNDERSTOOD)
        d.pending = "more"
        d.asked = None
        self.say(QUESTIONS["more"])

    # -- proposing

    def _propose(self, intent: Intent) -> None:
        missing = self._missing(intent)
        if missing is not None:
            intent.options = []
            self._ask(intent, missing, recap=True)
            return
        slots = effective_slots(self.d, intent)
        self._show(intent, slots, search(self.world, intent.domain, slots, intent.skip))

    def _show(self, intent: Intent, slots: dict[str, Any], found: Proposal | None) -> None:
        """Show the options ``found`` for the complete request ``slots``, or say none were."""
        index = self.d.intents.index(intent)
        if found is None:
            self._nothing_found(intent, slots)
            return
        intent.options = found.options
        intent.proposed = found.proposed
        self.d.pending = "confirm"
        self.d.asked = index
        lang = self.lang
        relaxed = relaxed_text(intent.domain, slots, found.relaxed, lang) if found.relaxed else ""
        several = len(found.options) > 1
        if found.relaxed:
            lead = wording.CLOSEST_SEVERAL if several else wording.CLOSEST_ONE
        else:
            lead = wording.FOUND_SEVERAL if several else wording.FOUND_ONE
        request = request_text(intent, slots, lang)
        self.say(wording.LOOKED_UP, request=request, relaxed=relaxed, lead=lead.text(lang))
        recommended = found.options[found.proposed]
        if several:
            lines = "".join(
                wording.OPTION_LINE.text(lang, n=n, option=option_text(option, lang))
                for n, option in enumerate(found.options, 1)
            )
            self.say(
                wording.RECOMMENDATION,
                lines=lines,
                n=found.proposed + 1,
                option=short_text(recommended, lang),
            )
        else:
            self.say(wording.ONLY_OPTION, option=option_text(recommended, lang))

    def _nothing_found(self, intent: Intent, slots: dict[str, Any]) -> None:
        retried = bool(intent.skip)
        intent.options = []
        intent.skip = []
        request = request_text(intent, slots, self.lang)
        self.say(wording.NO_OTHER_OPTIONS if retried else wording.NO_OPTIONS, request=request)
        day_slot = "check_in" if intent.domain == "hotel" else "date"
        intent.slots.pop(day_slot, None)
        self.say(wording.TRY_ANOTHER_DAY)
        self._ask(intent, day_slot, recap=False)
