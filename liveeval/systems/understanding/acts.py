"""Dialogue acts: confirmations, refusals, corrections, cancellations, farewells, choices
("the second one") and requests the booking world does not cover.
"""

from __future__ import annotations

import re

from liveeval.systems.understanding.numbers import EN_ORDINALS, number_value
from liveeval.systems.understanding.scanner import Found, Scanner


def read_ordinal(scanner: Scanner) -> int | None:
    """ "第二个", "the second one", "option 2": a 1-based position, -1 for the last one."""
    chosen: list[int] = []

    def position(value: int | None) -> Found:
        if value is None or value == 0:
            return None
        chosen.append(value)
        return []

    scanner.take(
        r"第\s*(?P<n>[一二三四五六七八九十]|\d)\s*(?:个|家|班|趟|项|种|条|列|号)?",
        lambda m: position(number_value(m["n"])),
    )
    scanner.take(r"最后(?:一|那)(?:个|家|班|趟)", lambda m: position(-1))
    scanner.take(
        r"\b(?:the\s+)?(?P<o>first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last)\s+"
        r"(?:one|option|flight|train|hotel|choice)\b",
        lambda m: position(EN_ORDINALS[m["o"]]),
    )
    scanner.take(
        r"\b(?:option|number|no\.?)\s*(?P<n>\d)\b|#\s*(?P<h>\d)\b",
        lambda m: position(int(m["n"] or m["h"])),
    )
    scanner.take(
        r"^\s*(?:the\s+)?(?P<o>first|second|third|last)(?:\s+one)?\s*(?:please)?[\s.!]*$",
        lambda m: position(EN_ORDINALS[m["o"]]),
    )
    return chosen[0] if chosen else None


def clause_texts(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"[,;.!?\n、。~]+", text) if part.strip()]


PARTICLES = r"(?:吧|啊|呀|的|了|哈|嘛|哦|呢|滴)*"


CONFIRM_ALONE_ZH = (
    r"好|好的|行|可以|是|对|嗯+|确认|确定|要|订|没问题|ok|也行|都行|都可以|就这个|这个|好嘞|妥"
)


CONFIRM_ANYWHERE_ZH = (
    r"确认|就这个|就订|订吧|订这|就它|就要这|没问题|可以的|预订吧|订了吧|就这样|也行"
    r"|(?<![最不你您])好的|(?<!不)是的|(?<!不)对的"
)


CONFIRM_ALONE_EN = (
    r"yes|yeah|yep|yup|ok|okay|sure|fine|great|perfect|alright|all right|correct|right|good"
    r"|yes please|ok please|sounds good|that works|that's fine|go ahead|please do|do it|confirm"
)


CONFIRM_ANYWHERE_EN = (
    r"\b(?:book it|book that|book this|go ahead|confirm|sounds good|that works|i'll take it"
    r"|i will take it|let's do it|yes please|that one)\b|^(?:yes|yeah|yep|ok|okay|sure)\b"
)


DENY_ALONE = (
    r"不|不行|不要|不好|不对|不是|否|不可以|不太好|不太行|不合适|no|nope|nah|not really|no way"
)


DENY_ANYWHERE = (
    r"不要这|不行|不可以|不合适|不满意|换一个|换个|还有别的|(?<!没)有别的吗|(?<!没)有其他|别的吗"
    r"|\bnot that one\b|\bdon't book\b|\bdo not book\b|\banother one\b|\bsomething else\b"
    r"|\bother options?\b|\bnext one\b|\bnone of (?:them|these)\b|\banything else available\b"
)


DECLINE = r"不用了|算了|不需要了|不订了|不要了|\bno thanks\b|\bnever mind\b|\bforget it\b"


FAREWELL = (
    r"没有了|没了|不用了|不需要了|没有别的|就这些|就这样吧|没其他|再见|拜拜|\bbye\b|\bgoodbye\b"
    r"|没有其他|\bthat's all\b|\bthat is all\b|\bthat(?: will|'ll) be all\b|\bi'm good\b"
    r"|\bnothing else\b|\bno thanks\b|\bno,? thank you\b"
    r"|\bi'm done\b|\ball set\b|\bthat's it\b"
)


GOODBYE = r"再见|拜拜|\bbye\b|\bgoodbye\b"


THANKS = r"谢谢|多谢|感谢|\bthanks?\b|\bthank you\b"


CANCEL = r"取消|退订|退掉|退票|\bcancel\b|\bcall off\b"


CORRECTION = (
    r"不对|不是|错了|搞错|改成|改为|改到|换成|改一下|更正|\bactually\b|\bmake it\b"
    r"|\bchange (?:it|that|the)\b|\binstead\b|\bi meant?\b|\bsorry\b|\bwrong\b|\brather\b"
)


AGAIN = (
    r"再订|再来|再买|再要|还要订|还要一|再帮我订|还想订|\bone more\b|\balso (?:need|want|book)\b"
    r"|\banother (?:flight|train|hotel|room|ticket)\b"
)


CHEAPER = (
    r"便宜点|便宜一点|便宜些|更便宜|太贵|贵了|\bcheaper\b|\btoo expensive\b|\bless expensive\b"
)


GREETING = (
    r"^(?:你好|您好|hi\b|hello|hey\b|嗨|哈喽|在吗|早上好|下午好|晚上好"
    r"|good (?:morning|afternoon|evening))"
)


GREETING_WORDS = r"早上好|下午好|晚上好|早安|晚安|\bgood (?:morning|afternoon|evening)\b"


HELP = (
    r"你能做什么|能做什么|能干什么|你会什么|怎么用|帮助|\bhelp\b|\bwhat can you do\b"
    r"|\bhow does this work\b|有什么功能"
)


OPEN_ANSWER = (
    r"随便|都行|都可以|不限|无所谓|没要求|没有要求|都好|任意|\bwhatever\b|\bany\b|\banything\b"
    r"|\bdoesn'?t matter\b|\bdoes not matter\b|\bdon'?t care\b|\bno preference\b|\beither\b"
    r"|\bflexible\b"
)


OFF_TOPIC = (
    r"天气|笑话|新闻|股票|音乐|唱歌|唱首|电影|外卖|餐厅|美食|吃什么|翻译|快递|彩票|讲个故事|游戏|星座"
    r"|\bweather\b|\bjokes?\b|\bnews\b|\bstocks?\b|\bmusic\b|\bsongs?\b|\bmovies?\b"
    r"|\brestaurants?\b|\btranslate\b|\bstory\b|\bgames?\b"
)


UNSUPPORTED = {
    "汽车票": "bus", "长途汽车": "bus", "大巴": "bus", "巴士": "bus", "船票": "ferry",
    "轮渡": "ferry", "游轮": "ferry", "租车": "car", "打车": "taxi", "出租车": "taxi",
    "网约车": "taxi", "门票": "attraction", "景点": "attraction", "签证": "visa", "改签": "change",
    "bus": "bus", "coach": "bus", "ferry": "ferry", "boat": "ferry", "cruise": "ferry",
    "car rental": "car", "rent a car": "car", "taxi": "taxi", "visa": "visa",
}  # fmt: skip


def alone(pattern: str, clauses: list[str]) -> bool:
    return any(re.fullmatch(rf"(?:{pattern}){PARTICLES}(?:please|thanks|thank you)?", c)
               for c in clauses)  # fmt: skip


def anywhere(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None
