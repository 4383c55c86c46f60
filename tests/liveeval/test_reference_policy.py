"""Whole dialogues with the reference system against the in-memory world.

Every conversation stores the state as JSON text between turns (``Conversation``), as the
database does. Expected numbers come from ``memory_world``'s formulas: on 北京→上海 the full
economy fare is 550 yuan and flight k of day d is sold at discount (0.6, 0.8, 0.7, 1.0, 0.5,
0.9)[(k + d) % 6]; so tomorrow (d = 1) CA1006 at 07:30 costs 0.8 × 550 = 440 yuan and
MU1007 at 10:05 costs 0.7 × 550 = 385, rounded to tens: 380.
"""

from __future__ import annotations

import datetime as dt

import pytest

from liveeval.booking.offers import BookingReceipt
from liveeval.systems.reference import turn as reference
from tests.liveeval.memory_world import Conversation, MemoryWorld

TODAY = dt.date(2025, 5, 14)
TOMORROW = TODAY + dt.timedelta(days=1)
IN_TWO_DAYS = TODAY + dt.timedelta(days=2)


@pytest.fixture
def world() -> MemoryWorld:
    return MemoryWorld(TODAY)


@pytest.fixture
def chat(world: MemoryWorld) -> Conversation:
    return Conversation(reference.respond, world)


@pytest.fixture
def noon_only_world() -> MemoryWorld:
    """The seed's situation: no morning flight tomorrow, the nearest leaves at 12:10."""
    world = MemoryWorld(TODAY, generated=False)
    world.add_flight("北京", "上海", TOMORROW, "12:10", number="MU5101", economy=910, discount=0.73)
    world.add_flight("北京", "上海", TOMORROW, "15:40", number="CA1502", economy=1250, discount=1.0)
    world.add_flight("北京", "上海", TOMORROW, "20:00", number="CZ3901", economy=700, discount=0.56)
    return world


def only_booking(world: MemoryWorld) -> BookingReceipt:
    active = world.active()
    assert len(active) == 1, active
    return active[0]


def test_it_books_a_one_sentence_request_after_confirmation(
    chat: Conversation, world: MemoryWorld
) -> None:
    proposal = chat.say("我想预订明天从北京去上海的上午出发的机票")
    assert "1. CA1006（中国国航）07:30–09:32，经济舱8.0折，440元" in proposal.text
    assert "2. MU1007（东方航空）10:05–12:07，经济舱7.0折，380元" in proposal.text
    assert world.active() == []

    booked = chat.say("好的")

    receipt = only_booking(world)
    assert (receipt.details["number"], receipt.option, receipt.price) == ("CA1006", "economy", 440)
    assert f"订单号：{receipt.reference}" in booked.text
    assert not booked.end


def test_it_asks_for_missing_slots_one_at_a_time(chat: Conversation) -> None:
    assert "从哪个城市出发" in chat.say("我要订机票").text
    assert "要去哪个城市" in chat.say("北京").text
    assert "哪天出发" in chat.say("上海").text
    assert "几点出发？" in chat.say("明天").text
    assert "CA1006" in chat.say("上午").text


def test_it_takes_slots_given_in_answer_to_a_different_question(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("我要订机票")
    # Asked where from, the user gives the date, the destination and the time instead.
    reply = chat.say("明天去上海，下午出发")
    assert "5月15日（周四）到上海的航班" in reply.text
    assert "从哪个城市出发" in reply.text
    # Once the departure city comes, nothing is missing: it proposes at once.
    proposal = chat.say("从北京走")
    assert "1. CZ1008（南方航空）13:20" in proposal.text
    chat.say("第一个")
    assert only_booking(world).details["depart"] == "13:20"


def test_it_asks_the_departure_time_with_the_contract_wording_in_english(
    chat: Conversation,
) -> None:
    reply = chat.say("I need a flight from Beijing to Shanghai tomorrow")
    assert "What time would you like to leave?" in reply.text
    assert reply.lang == "en"


def test_it_offers_the_closest_departure_when_no_flight_leaves_in_the_window(
    noon_only_world: MemoryWorld,
) -> None:
    chat = Conversation(reference.respond, noon_only_world)
    chat.say("查询明天从北京去上海的机票")
    proposal = chat.say("上午吧")
    assert "没有06:00–12:00出发的航班" in proposal.text
    assert "推荐第1个（MU5101，12:10出发，910元）" in proposal.text
    assert "MU5101（东方航空）12:10–14:20，经济舱7.3折，910元" in proposal.text

    chat.say("也行，就订这个吧")

    assert only_booking(noon_only_world).details["number"] == "MU5101"


def test_it_takes_a_combined_window_as_the_union(noon_only_world: MemoryWorld) -> None:
    chat = Conversation(reference.respond, noon_only_world)
    chat.say("查询明天从北京去上海的机票")
    proposal = chat.say("上午或者中午")
    # 12:10 falls inside 中午 (11–13), so it is a match, not an alternative.
    assert "没有" not in proposal.text
    assert "为您找到：MU5101" in proposal.text


def test_it_offers_the_cheapest_hotel_above_the_price_limit() -> None:
    world = MemoryWorld(TODAY, generated=False)
    world.add_hotel("上海", "锦江饭店", stars=5, king=980)
    world.add_hotel("上海", "和平饭店", stars=5, king=1500)
    world.add_hotel("上海", "汉庭酒店", stars=2, king=220)
    chat = Conversation(reference.respond, world)

    proposal = chat.say("订上海的酒店，五星，每晚800以内，明天入住，住两晚")

    assert "没有每晚800元以内的酒店" in proposal.text
    assert "推荐第1个（锦江饭店，980元/晚）" in proposal.text
    chat.say("可以")
    receipt = only_booking(world)
    assert (receipt.details["hotel"], receipt.details["nights"], receipt.price) == (
        "锦江饭店",
        2,
        1960,
    )


def test_it_never_books_twice_when_the_user_confirms_twice(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("明天上午从北京到上海的机票")
    chat.say("好的")
    again = chat.say("好的，就订这个")

    assert len(world.bookings) == 1
    assert "不会重复预订" in again.text


def test_it_reproposes_when_a_slot_is_corrected_before_booking(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("明天上午从北京到上海的机票")
    proposal = chat.say("不对，是后天")
    assert "5月16日（周五）从北京到上海的航班" in proposal.text
    assert world.bookings == {}

    chat.say("好的")

    assert only_booking(world).details["date"] == IN_TWO_DAYS.isoformat()


def test_it_replaces_a_booking_corrected_after_it_was_made(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("明天上午从北京到上海的机票")
    first = chat.say("好的")
    assert "M00001" in first.text
    chat.say("actually, make it the day after tomorrow")
    replaced = chat.say("yes")

    assert "M00001 is cancelled" in replaced.text
    receipt = only_booking(world)
    assert (receipt.reference, receipt.details["date"]) == ("M00002", IN_TWO_DAYS.isoformat())


def test_it_books_the_option_picked_from_the_list(chat: Conversation, world: MemoryWorld) -> None:
    chat.say("明天从北京到上海的机票，上午")
    chat.say("第二个")
    assert only_booking(world).details["number"] == "MU1007"


def test_it_books_the_cheapest_shown_option_on_request(
    chat: Conversation, world: MemoryWorld
) -> None:
    # Tomorrow's 北京→上海 afternoon and evening fares: 13:20 at 0.6 (330), 16:45 at 0.5 (280),
    # 19:10 at 0.9 (500), 21:35 at 0.6 (330).
    chat.say("a flight from Beijing to Shanghai tomorrow after 1pm")
    chat.say("the cheapest")
    receipt = only_booking(world)
    assert (receipt.details["depart"], receipt.price) == ("16:45", 280)


def test_it_says_when_the_proposal_already_is_the_cheapest(chat: Conversation) -> None:
    chat.say("上海的酒店，明天入住，住两晚")
    reply = chat.say("有便宜点的吗")
    # 上海 (index 1) adds 10 yuan to the 180-yuan 2-star king room.
    assert reply.text == "这已经是最便宜的选择了。请问要预订上海如家快捷酒店，190元/晚吗？"


def test_it_moves_to_a_cheaper_option_on_request(chat: Conversation, world: MemoryWorld) -> None:
    chat.say("明天上午从北京到上海的机票")
    reply = chat.say("太贵了")
    assert "推荐第2个（MU1007，10:05出发，380元）" in reply.text
    chat.say("好的")
    assert only_booking(world).price == 380


def test_it_says_how_many_options_there_are_when_a_pick_is_off_the_list(
    noon_only_world: MemoryWorld,
) -> None:
    chat = Conversation(reference.respond, noon_only_world)
    chat.say("明天从北京到上海的机票，中午")
    reply = chat.say("第三个")
    assert reply.text.startswith("目前只有1个选择")
    assert noon_only_world.bookings == {}


def test_it_moves_to_the_next_option_when_the_chosen_one_sells_out(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("明天从北京到上海的机票，上午")
    gone = next(f for f in world.flights.values() if f.number == "CA1006")
    world.sell_out(gone.id)

    retry = chat.say("好的")
    assert "CA1006，07:30出发，440元预订失败" in retry.text
    assert "MU1007" in retry.text
    assert world.active() == []

    chat.say("好的")
    assert only_booking(world).details["number"] == "MU1007"


def test_it_handles_a_train_then_a_hotel_with_the_trip_defaults(
    chat: Conversation, world: MemoryWorld
) -> None:
    first = chat.say(
        "I need a train from Beijing to Shanghai tomorrow morning and a hotel there for two nights"
    )
    assert "trains on Thu 15 May from Beijing to Shanghai" in first.text
    second = chat.say("yes")
    assert "Next, the hotel." in second.text
    assert "a hotel in Shanghai from Thu 15 May for 2 nights" in second.text
    chat.say("yes")

    train, hotel = world.active()
    assert (train.domain, train.option, train.details["depart"]) == ("train", "second", "06:30")
    assert (hotel.domain, hotel.details["city"], hotel.details["check_in"]) == (
        "hotel",
        "上海",
        TOMORROW.isoformat(),
    )
    assert hotel.details["nights"] == 2


def test_it_handles_a_hotel_then_a_flight_in_the_order_mentioned(
    chat: Conversation, world: MemoryWorld
) -> None:
    first = chat.say("先订杭州的酒店，明天入住，住一晚，然后订后天从杭州到北京的机票，晚上走")
    assert first.text.startswith("帮您查询了杭州的酒店")
    second = chat.say("好的")
    assert "接下来为您预订机票" in second.text
    chat.say("好的")

    hotel, flight = world.active()
    assert (hotel.domain, hotel.details["city"], hotel.details["nights"]) == ("hotel", "杭州", 1)
    assert (flight.domain, flight.details["date"]) == ("flight", IN_TWO_DAYS.isoformat())
    assert str(flight.details["depart"]) >= "18:00"


def test_it_gives_a_trailing_price_to_the_trip_it_follows(
    chat: Conversation, world: MemoryWorld
) -> None:
    # The afternoon 上海→北京 trains the day after tomorrow: G at 13:00 and 15:30 cost
    # 0.46 × 500 = 230 yuan in second class, the 14:10 D train (route 20, so D202) 155.
    chat.say("先订上海的酒店，明天入住一晚，然后订后天从上海到北京的火车，下午，200元以内")
    chat.say("好的")
    chat.say("好的")
    hotel, train = world.active()
    assert (hotel.domain, hotel.price) == ("hotel", 190)
    assert (train.details["number"], train.price) == ("D202", 155)


def test_it_takes_a_new_intent_raised_after_a_booking(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("后天从北京到上海的高铁，下午")
    chat.say("好的")
    reply = chat.say("再订一间上海的酒店，四星以上")
    # The check-in defaults to the train's date; only the nights are missing.
    assert "上海的酒店（5月16日（周五）入住）" in reply.text
    assert "请问住几晚？" in reply.text
    chat.say("3")
    chat.say("好的")

    hotel = world.active()[1]
    assert (hotel.details["stars"], hotel.details["nights"]) == (4, 3)


def test_it_treats_an_open_answer_as_any_departure_time(chat: Conversation) -> None:
    chat.say("明天北京到上海的机票")
    proposal = chat.say("随便")
    assert "推荐第1个（CA1006，07:30出发，440元）" in proposal.text


def test_it_gives_guidance_for_out_of_scope_requests(chat: Conversation) -> None:
    joke = chat.say("给我讲个笑话")
    assert "我可以帮您查询和预订机票、火车票和酒店" in joke.text

    chat.say("明天北京到上海的机票")
    weather = chat.say("今天天气怎么样")
    assert "这个我帮不上忙" in weather.text
    assert weather.text.endswith("或者几点都可以）")


def test_it_explains_which_bookings_it_cannot_make(chat: Conversation) -> None:
    reply = chat.say("帮我买一张汽车票")
    assert "暂不支持汽车票" in reply.text


def test_it_names_the_cities_it_covers_when_asked_for_another(chat: Conversation) -> None:
    reply = chat.say("我要订去拉萨的机票")
    assert "拉萨不在可预订的城市范围内" in reply.text
    assert "哈尔滨" in reply.text


def test_it_refuses_a_date_in_the_past(chat: Conversation) -> None:
    reply = chat.say("5月10日从北京到上海的机票")
    assert "5月10日（周六）已经过去了" in reply.text
    assert "哪天出发" in reply.text


def test_it_asks_for_the_domain_when_only_a_route_is_given(chat: Conversation) -> None:
    assert "机票、火车票还是酒店" in chat.say("明天北京到广州").text
    reply = chat.say("火车")
    assert "5月15日（周四）从北京到广州的火车票" in reply.text
    assert "几点出发？" in reply.text


def test_it_cancels_the_last_booking(chat: Conversation, world: MemoryWorld) -> None:
    chat.say("明天上午从北京到上海的机票")
    chat.say("好的")
    reply = chat.say("取消")
    assert "已为您取消订单M00001" in reply.text
    assert world.active() == []


def test_it_drops_a_request_cancelled_before_booking(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("明天上午从北京到上海的机票")
    reply = chat.say("cancel")
    assert "dropped the flight request" in reply.text
    assert world.bookings == {}


def test_it_answers_each_message_in_its_language(chat: Conversation) -> None:
    zh = chat.say("我要订明天从北京到上海的机票")
    en = chat.say("in the morning please")
    assert (zh.lang, en.lang) == ("zh", "en")
    assert "Shall I book it?" in en.text


def test_it_ends_the_dialogue_when_nothing_else_is_needed(chat: Conversation) -> None:
    chat.say("明天上午从北京到上海的机票")
    booked = chat.say("好的")
    assert booked.text.endswith("请问还需要别的帮助吗？")

    goodbye = chat.say("没有了，谢谢")
    after = chat.say("你好")
    assert goodbye.end and after.end


def test_it_uses_the_cheapest_seat_class_of_a_train_by_default(
    chat: Conversation, world: MemoryWorld
) -> None:
    # The 21:05 K train from 北京 to 上海: 500 km at 0.12 yuan/km for a hard seat is 60 yuan.
    chat.say("明天北京到上海的火车，晚上9点以后")
    chat.say("好的")
    receipt = only_booking(world)
    assert (receipt.details["number"], receipt.option, receipt.price) == ("K11", "hard_seat", 60)


def test_it_works_out_the_nights_from_a_check_out_date(
    chat: Conversation, world: MemoryWorld
) -> None:
    chat.say("订一间上海的大床房，20号入住，23号退房")
    chat.say("好的")
    receipt = only_booking(world)
    assert (receipt.details["check_in"], receipt.details["nights"]) == ("2025-05-20", 3)


def test_its_state_resumes_in_a_fresh_policy_call_from_json(world: MemoryWorld) -> None:
    chat = Conversation(reference.respond, world)
    chat.say("明天上午从北京到上海的机票")
    # A different process picks up only the stored JSON text.
    resumed = Conversation(reference.respond, world)
    resumed.stored = chat.stored
    resumed.say("第二个")
    assert only_booking(world).details["number"] == "MU1007"
