"""Reading dates, times, cities, classes, numbers, comparatives and choices, in zh and en.

Unless a test says otherwise, "today" is Wednesday 14 May 2025.
"""

from __future__ import annotations

import datetime as dt

import pytest

from liveeval.systems.understanding.language import detect_lang
from liveeval.systems.understanding.numbers import number_value
from liveeval.systems.understanding.reading import read
from liveeval.systems.understanding.times import END_OF_DAY, clock_minutes

WEDNESDAY = dt.date(2025, 5, 14)
FRIDAY = dt.date(2025, 5, 16)
SUNDAY = dt.date(2025, 5, 18)


def day(offset: int, start: dt.date = WEDNESDAY) -> dt.date:
    return start + dt.timedelta(days=offset)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("今天", day(0)),
        ("明天", day(1)),
        ("后天", day(2)),
        ("大后天", day(3)),
        ("4天后", day(4)),
        ("三天后", day(3)),
        ("十天之后", day(10)),
        ("两周后", day(14)),
        ("明晚", day(1)),
        ("周五", dt.date(2025, 5, 16)),
        ("星期五", dt.date(2025, 5, 16)),
        ("这周五", dt.date(2025, 5, 16)),
        ("周三", WEDNESDAY),
        ("周二", dt.date(2025, 5, 20)),
        ("星期天", dt.date(2025, 5, 18)),
        ("下周三", dt.date(2025, 5, 21)),
        ("下星期一", dt.date(2025, 5, 19)),
        ("下下周一", dt.date(2025, 5, 26)),
        ("12月3日", dt.date(2025, 12, 3)),
        ("12月3号", dt.date(2025, 12, 3)),
        ("5月20号", dt.date(2025, 5, 20)),
        ("五月二十日", dt.date(2025, 5, 20)),
        ("2025年6月1日", dt.date(2025, 6, 1)),
        ("1月5日", dt.date(2026, 1, 5)),
        ("3号", dt.date(2025, 6, 3)),
        ("20号", dt.date(2025, 5, 20)),
        ("14号", WEDNESDAY),
        ("2025-06-01", dt.date(2025, 6, 1)),
        ("2025/6/1", dt.date(2025, 6, 1)),
        ("today", day(0)),
        ("tomorrow", day(1)),
        ("the day after tomorrow", day(2)),
        ("in three days", day(3)),
        ("in 4 days", day(4)),
        ("5 days from now", day(5)),
        ("in a week", day(7)),
        ("Friday", dt.date(2025, 5, 16)),
        ("this Friday", dt.date(2025, 5, 16)),
        ("on Wednesday", WEDNESDAY),
        ("next Friday", dt.date(2025, 5, 23)),
        ("next Monday", dt.date(2025, 5, 19)),
        ("Dec 3", dt.date(2025, 12, 3)),
        ("December 3rd", dt.date(2025, 12, 3)),
        ("3 December", dt.date(2025, 12, 3)),
        ("the 3rd of December", dt.date(2025, 12, 3)),
        ("on the 20th", dt.date(2025, 5, 20)),
    ],
)
def test_it_reads_dates(text: str, expected: dt.date) -> None:
    assert read(text, WEDNESDAY).slots().dates == [expected]


@pytest.mark.parametrize(
    ("text", "today", "expected"),
    [
        # On a Friday, "周五" and "Friday" are that very day; "下周五" is seven days later.
        ("周五", FRIDAY, FRIDAY),
        ("Friday", FRIDAY, FRIDAY),
        ("下周五", FRIDAY, dt.date(2025, 5, 23)),
        ("next Friday", FRIDAY, dt.date(2025, 5, 23)),
        ("周四", FRIDAY, dt.date(2025, 5, 22)),
        # "下周三" is the Wednesday of the week after this Monday-to-Sunday week.
        ("下周三", FRIDAY, dt.date(2025, 5, 21)),
        ("下周三", SUNDAY, dt.date(2025, 5, 21)),
        ("下周一", SUNDAY, dt.date(2025, 5, 19)),
        ("周一", SUNDAY, dt.date(2025, 5, 19)),
    ],
)
def test_it_reads_weekdays_relative_to_the_dialogue_date(
    text: str, today: dt.date, expected: dt.date
) -> None:
    assert read(text, today).slots().dates == [expected]


def test_it_reads_a_recently_passed_month_day_as_this_years_past_date() -> None:
    assert read("5月10日", WEDNESDAY).slots().dates == [dt.date(2025, 5, 10)]


@pytest.mark.parametrize(
    ("text", "check_in", "check_out"),
    [
        ("12月3日到12月5日", dt.date(2025, 12, 3), dt.date(2025, 12, 5)),
        ("3号入住，5号退房", dt.date(2025, 6, 3), dt.date(2025, 6, 5)),
        ("from Dec 3 to Dec 5", dt.date(2025, 12, 3), dt.date(2025, 12, 5)),
    ],
)
def test_it_reads_a_stay_as_check_in_and_check_out(
    text: str, check_in: dt.date, check_out: dt.date
) -> None:
    slots = read(text, WEDNESDAY).slots()
    assert (slots.dates, slots.check_out) == ([check_in], check_out)


H = 60


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("凌晨", [(0, 6 * H)]),
        ("早上", [(6 * H, 9 * H)]),
        ("上午", [(6 * H, 12 * H)]),
        ("中午", [(11 * H, 13 * H)]),
        ("下午", [(12 * H, 18 * H)]),
        ("傍晚", [(17 * H, 19 * H)]),
        ("晚上", [(18 * H, END_OF_DAY)]),
        ("上午或中午", [(6 * H, 13 * H)]),
        ("上午或者中午吧", [(6 * H, 13 * H)]),
        ("中午或下午", [(11 * H, 18 * H)]),
        ("早上或者晚上", [(6 * H, 9 * H), (18 * H, END_OF_DAY)]),
        ("10点以前", [(0, 10 * H)]),
        ("十点前", [(0, 10 * H)]),
        ("下午3点以后", [(15 * H, END_OF_DAY)]),
        ("3点以后", [(15 * H, END_OF_DAY)]),
        ("晚上8点以后", [(20 * H, END_OF_DAY)]),
        ("9点半以后", [(9 * H + 30, END_OF_DAY)]),
        ("10:30以后", [(10 * H + 30, END_OF_DAY)]),
        ("不晚于10点", [(0, 10 * H)]),
        ("最早8点", [(8 * H, END_OF_DAY)]),
        ("9点到11点之间", [(9 * H, 11 * H)]),
        ("下午1点到3点", [(13 * H, 15 * H)]),
        ("十点左右", [(9 * H, 11 * H)]),
        ("morning", [(6 * H, 12 * H)]),
        ("noon", [(11 * H, 13 * H)]),
        ("afternoon", [(12 * H, 18 * H)]),
        ("evening", [(18 * H, END_OF_DAY)]),
        ("morning or noon", [(6 * H, 13 * H)]),
        ("before 10", [(0, 10 * H)]),
        ("before 10am", [(0, 10 * H)]),
        ("after 3pm", [(15 * H, END_OF_DAY)]),
        ("after 15:00", [(15 * H, END_OF_DAY)]),
        ("before noon", [(0, 12 * H)]),
        ("no later than 9:30", [(0, 9 * H + 30)]),
        ("between 9 and 11am", [(9 * H, 11 * H)]),
        ("around 3pm", [(14 * H, 16 * H)]),
    ],
)
def test_it_reads_time_windows_and_limits(text: str, spans: list[tuple[int, int]]) -> None:
    assert read(text, WEDNESDAY).slots().spans == spans


@pytest.mark.parametrize(
    ("text", "spans", "date"),
    [
        ("今晚", [(18 * H, END_OF_DAY)], day(0)),
        ("明早", [(6 * H, 9 * H)], day(1)),
        ("tonight", [(18 * H, END_OF_DAY)], day(0)),
        ("tomorrow morning", [(6 * H, 12 * H)], day(1)),
    ],
)
def test_it_reads_a_date_and_window_in_one_word(
    text: str, spans: list[tuple[int, int]], date: dt.date
) -> None:
    slots = read(text, WEDNESDAY).slots()
    assert (slots.spans, slots.dates) == (spans, [date])


@pytest.mark.parametrize("text", ["几点都可以", "时间不限", "什么时候都行", "any time", "anytime"])
def test_it_reads_an_explicit_any_time(text: str) -> None:
    slots = read(text, WEDNESDAY).slots()
    assert slots.any_time and slots.spans is None


@pytest.mark.parametrize("text", ["随便", "都行", "不限", "无所谓", "whatever", "doesn't matter"])
def test_it_reads_open_answers(text: str) -> None:
    assert read(text, WEDNESDAY).open_answer


@pytest.mark.parametrize(
    ("hour", "minute", "window", "meridiem", "expected"),
    [
        (3, 0, None, None, 15 * H),
        (7, 0, None, None, 7 * H),
        (1, 0, "中午", None, 13 * H),
        (12, 0, "晚上", None, END_OF_DAY),
        (12, 0, None, "am", 0),
    ],
)
def test_it_places_bare_hours_in_the_half_of_the_day_people_mean(
    hour: int, minute: int, window: str | None, meridiem: str | None, expected: int
) -> None:
    assert clock_minutes(hour, minute, window, meridiem) == expected


@pytest.mark.parametrize(
    ("text", "from_city", "to_city"),
    [
        ("从北京到上海", "北京", "上海"),
        ("北京到上海", "北京", "上海"),
        ("北京去上海", "北京", "上海"),
        ("北京飞上海", "北京", "上海"),
        ("北京→上海", "北京", "上海"),
        ("从上海出发去广州", "上海", "广州"),
        ("杭州出发", "杭州", None),
        ("去深圳", None, "深圳"),
        ("到成都", None, "成都"),
        ("回北京", None, "北京"),
        ("from Beijing to Shanghai", "北京", "上海"),
        ("Beijing to Shanghai", "北京", "上海"),
        ("to Xi'an from Chongqing", "重庆", "西安"),
        ("Harbin to Dalian", "哈尔滨", "大连"),
        ("flying to Xiamen", None, "厦门"),
        ("leaving from Qingdao", "青岛", None),
    ],
)
def test_it_reads_departure_and_arrival_cities(
    text: str, from_city: str | None, to_city: str | None
) -> None:
    slots = read(text, WEDNESDAY).slots()
    assert (slots.from_city, slots.to_city) == (from_city, to_city)


@pytest.mark.parametrize(
    ("text", "stay", "loose"),
    [
        ("上海的酒店", "上海", []),
        ("住在杭州", "杭州", []),
        ("a hotel in Suzhou", "苏州", []),
        ("南京", None, ["南京"]),
        ("Shenyang", None, ["沈阳"]),
        ("Kunming", None, ["昆明"]),
    ],
)
def test_it_reads_hotel_cities_and_bare_city_answers(
    text: str, stay: str | None, loose: list[str]
) -> None:
    slots = read(text, WEDNESDAY).slots()
    assert (slots.stay_city, slots.cities) == (stay, loose)


@pytest.mark.parametrize(
    ("text", "places"), [("我要去拉萨", ["拉萨"]), ("a flight to Tokyo", ["tokyo"])]
)
def test_it_notices_places_outside_the_booking_world(text: str, places: list[str]) -> None:
    assert read(text, WEDNESDAY).unknown_places == places


@pytest.mark.parametrize(
    ("text", "cabin", "seat"),
    [
        ("经济舱", "economy", None),
        ("商务舱", "business", None),
        ("头等舱", "first", None),
        ("二等座", None, "second"),
        ("一等座", None, "first"),
        ("商务座", None, "business"),
        ("硬座", None, "hard_seat"),
        ("硬卧", None, "hard_sleeper"),
        ("软卧", None, "soft_sleeper"),
        ("卧铺", None, "hard_sleeper"),
        ("business class", "business", "business"),
        ("first class", "first", "first"),
        ("economy", "economy", "second"),
        ("second class", "economy", "second"),
        ("hard sleeper", None, "hard_sleeper"),
        ("soft sleeper", None, "soft_sleeper"),
    ],
)
def test_it_reads_cabins_and_seat_classes(text: str, cabin: str | None, seat: str | None) -> None:
    slots = read(text, WEDNESDAY).slots()
    assert (slots.cabin, slots.seat) == (cabin, seat)


@pytest.mark.parametrize(
    ("text", "train_type"),
    [
        ("高铁", "G"),
        ("动车", "D"),
        ("普通列车", "K"),
        ("G字头", "G"),
        ("D train", "D"),
        ("high-speed", "G"),
    ],
)
def test_it_reads_train_types(text: str, train_type: str) -> None:
    assert read(text, WEDNESDAY).slots().train_type == train_type


@pytest.mark.parametrize(
    ("text", "room"),
    [
        ("大床房", "king"),
        ("双床房", "twin"),
        ("标间", "twin"),
        ("套房", "suite"),
        ("a king room", "king"),
        ("twin room", "twin"),
        ("a suite", "suite"),
    ],
)
def test_it_reads_room_types(text: str, room: str) -> None:
    assert read(text, WEDNESDAY).slots().room_type == room


@pytest.mark.parametrize(
    ("text", "price"),
    [
        ("800以内", 800),
        ("每晚800以内", 800),
        ("不超过1000", 1000),
        ("800元以下", 800),
        ("预算1500", 1500),
        ("一千二以内", 1200),
        ("八百块以内", 800),
        ("不超过800元一晚", 800),
        ("under 800", 800),
        ("below 1,500 yuan", 1500),
        ("no more than 600", 600),
        ("at most 900 yuan per night", 900),
        ("1.5k max", 1500),
        ("500 a night or less", 500),
    ],
)
def test_it_reads_price_limits(text: str, price: int) -> None:
    slots = read(text, WEDNESDAY).slots()
    assert (slots.max_price, slots.nights) == (price, None)


@pytest.mark.parametrize(
    ("text", "stars"),
    [
        ("四星以上", 4),
        ("四星级以上", 4),
        ("五星", 5),
        ("五星级", 5),
        ("至少三星", 3),
        ("4星及以上", 4),
        ("at least 4 stars", 4),
        ("five-star", 5),
        ("4-star or above", 4),
        ("4+ stars", 4),
    ],
)
def test_it_reads_star_limits(text: str, stars: int) -> None:
    assert read(text, WEDNESDAY).slots().min_stars == stars


@pytest.mark.parametrize(
    ("text", "nights"),
    [
        ("住两晚", 2),
        ("两个晚上", 2),
        ("3晚", 3),
        ("一晚", 1),
        ("住3天", 3),
        ("3天2晚", 2),
        ("2 nights", 2),
        ("two nights", 2),
        ("for three nights", 3),
        ("just a night", 1),
    ],
)
def test_it_reads_nights(text: str, nights: int) -> None:
    slots = read(text, WEDNESDAY).slots()
    assert (slots.nights, slots.spans) == (nights, None)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("十五", 15),
        ("二十", 20),
        ("一百二十", 120),
        ("三百五", 350),
        ("一千二", 1200),
        ("两千五百", 2500),
        ("一千零五", 1005),
        ("八百", 800),
        ("1,500", 1500),
        ("three", 3),
    ],
)
def test_it_reads_numbers_as_people_write_them(text: str, value: int) -> None:
    assert number_value(text) == value


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("第一个", 1),
        ("第二个", 2),
        ("第3个", 3),
        ("第二家吧", 2),
        ("最后一个", -1),
        ("the first one", 1),
        ("the second option", 2),
        ("option 3", 3),
        ("second", 2),
        ("the last one", -1),
    ],
)
def test_it_reads_choices_by_position(text: str, position: int) -> None:
    assert read(text, WEDNESDAY).ordinal == position


@pytest.mark.parametrize(
    ("text", "superlative"),
    [
        ("最早的", "earliest"),
        ("最便宜的", "cheapest"),
        ("最晚的那班", "latest"),
        ("评分最高的", "best"),
        ("the earliest", "earliest"),
        ("the cheapest one", "cheapest"),
        ("the latest", "latest"),
    ],
)
def test_it_reads_choices_by_superlative(text: str, superlative: str) -> None:
    reading = read(text, WEDNESDAY)
    assert (reading.superlative, reading.ordinal) == (superlative, None)


@pytest.mark.parametrize("text", ["first class", "二等座", "一等座"])
def test_it_does_not_read_class_names_as_choices(text: str) -> None:
    assert read(text, WEDNESDAY).ordinal is None


@pytest.mark.parametrize(
    "text",
    [
        "好的",
        "是的",
        "可以",
        "确认",
        "行",
        "订吧",
        "就这个",
        "也行，就订这个吧",
        "yes",
        "OK",
        "sure",
        "book it",
        "yes please",
        "sounds good",
    ],
)
def test_it_reads_confirmations(text: str) -> None:
    reading = read(text, WEDNESDAY)
    assert reading.confirm and not reading.deny


@pytest.mark.parametrize(
    "text", ["最好是上午", "不行", "不可以", "你好", "no", "上午可以吗", "最好的那家", "不是的"]
)
def test_it_does_not_mistake_other_words_for_confirmations(text: str) -> None:
    assert not read(text, WEDNESDAY).confirm


@pytest.mark.parametrize(
    ("text", "act"),
    [
        ("不行", "deny"),
        ("换一个", "deny"),
        ("another one", "deny"),
        ("没有了", "farewell"),
        ("不用了", "farewell"),
        ("谢谢，再见", "goodbye"),
        ("no thanks", "farewell"),
        ("that's all", "farewell"),
        ("bye", "goodbye"),
        ("取消", "cancel"),
        ("帮我取消订单", "cancel"),
        ("cancel it", "cancel"),
        ("不对，是后天", "correction"),
        ("actually, make it Friday", "correction"),
        ("再订一张机票", "again"),
        ("有便宜点的吗", "cheaper"),
        ("今天天气怎么样", "off_topic"),
        ("tell me a joke", "off_topic"),
        ("你好", "greeting"),
        ("what can you do", "help"),
    ],
)
def test_it_reads_dialogue_acts(text: str, act: str) -> None:
    assert getattr(read(text, WEDNESDAY), act)


@pytest.mark.parametrize(("text", "kind"), [("汽车票", "bus"), ("can I rent a car", "car")])
def test_it_recognises_bookings_it_does_not_cover(text: str, kind: str) -> None:
    reading = read(text, WEDNESDAY)
    assert (reading.unsupported, reading.domains) == (kind, [])


@pytest.mark.parametrize(
    ("text", "domains"),
    [
        ("机票", ["flight"]),
        ("航班", ["flight"]),
        ("坐飞机", ["flight"]),
        ("火车票", ["train"]),
        ("高铁", ["train"]),
        ("动车", ["train"]),
        ("酒店", ["hotel"]),
        ("宾馆", ["hotel"]),
        ("订房", ["hotel"]),
        ("a flight", ["flight"]),
        ("I want to fly", ["flight"]),
        ("a train", ["train"]),
        ("a hotel", ["hotel"]),
        ("a room", ["hotel"]),
        ("先订酒店再订机票", ["hotel", "flight"]),
        ("a train to Shanghai and a hotel there", ["train", "hotel"]),
    ],
)
def test_it_reads_intents_in_the_order_they_are_named(text: str, domains: list[str]) -> None:
    assert read(text, WEDNESDAY).domains == domains


def test_it_keeps_each_intent_in_its_own_clause() -> None:
    reading = read("明天北京到上海的高铁，还有上海的酒店住两晚", WEDNESDAY)
    nights = next(hit for hit in reading.hits if hit.kind == "nights")
    date = next(hit for hit in reading.hits if hit.kind == "date")
    assert reading.clause_domain(reading.clause_of(date.start)) == "train"
    assert reading.clause_domain(reading.clause_of(nights.start)) == "hotel"


def test_it_gives_a_clause_without_a_domain_to_the_intent_named_before_it() -> None:
    reading = read("a hotel in Wuhan, and a train to Wuhan in 8 days, under 800 yuan", WEDNESDAY)
    price = next(hit for hit in reading.hits if hit.kind == "max_price")
    assert reading.clause_domain(reading.clause_of(price.start)) is None
    assert reading.domain_near(reading.clause_of(price.start)) == "train"


def test_it_reads_a_whole_request_without_reusing_a_number() -> None:
    slots = read("3号下午3点以后从北京到上海的机票，800以内，商务舱", WEDNESDAY).slots()
    assert slots.dates == [dt.date(2025, 6, 3)]
    assert slots.spans == [(15 * H, END_OF_DAY)]
    assert (slots.from_city, slots.to_city) == ("北京", "上海")
    assert (slots.max_price, slots.cabin) == (800, "business")


@pytest.mark.parametrize(
    ("text", "fallback", "lang"),
    [
        ("你好", "en", "zh"),
        ("OK好的", "en", "zh"),
        ("hello", "zh", "en"),
        ("CA1234", "en", "en"),
        ("CA1234", "zh", "zh"),
        ("2", "zh", "zh"),
        ("ok", "zh", "zh"),
        ("okay", "zh", "en"),
    ],
)
def test_it_detects_the_language_of_each_message(text: str, fallback: str, lang: str) -> None:
    assert detect_lang(text, fallback) == lang
