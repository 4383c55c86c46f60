"""The airlines and hotel brands of the booking world, by city tier."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Airline:
    code: str
    name: str
    name_en: str
    hubs: tuple[str, ...]


AIRLINES: tuple[Airline, ...] = (
    Airline("CA", "中国国际航空", "Air China", ("北京", "成都", "重庆", "天津")),
    Airline(
        "MU", "中国东方航空", "China Eastern Airlines", ("上海", "昆明", "西安", "南京", "武汉")
    ),
    Airline(
        "CZ",
        "中国南方航空",
        "China Southern Airlines",
        ("广州", "深圳", "沈阳", "大连", "哈尔滨", "郑州", "长沙"),
    ),
    Airline("HU", "海南航空", "Hainan Airlines", ("北京", "西安", "大连")),
    Airline("3U", "四川航空", "Sichuan Airlines", ("成都", "重庆")),
    Airline("ZH", "深圳航空", "Shenzhen Airlines", ("深圳",)),
    Airline("MF", "厦门航空", "XiamenAir", ("厦门", "杭州")),
    Airline("FM", "上海航空", "Shanghai Airlines", ("上海",)),
    Airline("SC", "山东航空", "Shandong Airlines", ("青岛",)),
    Airline("GS", "天津航空", "Tianjin Airlines", ("天津",)),
    Airline("9C", "春秋航空", "Spring Airlines", ("上海",)),
    Airline("HO", "吉祥航空", "Juneyao Air", ("上海",)),
    Airline("8L", "祥鹏航空", "Lucky Air", ("昆明",)),
    Airline("KN", "中国联合航空", "China United Airlines", ("北京",)),
    Airline("JD", "首都航空", "Beijing Capital Airlines", ("北京", "杭州")),
)


HOTEL_BRANDS: dict[int, tuple[tuple[str, str], ...]] = {
    5: (
        ("希尔顿酒店", "Hilton"),
        ("万豪酒店", "Marriott"),
        ("洲际酒店", "InterContinental"),
        ("香格里拉大酒店", "Shangri-La"),
        ("君悦酒店", "Grand Hyatt"),
        ("喜来登酒店", "Sheraton"),
        ("威斯汀酒店", "The Westin"),
        ("索菲特酒店", "Sofitel"),
    ),
    4: (
        ("皇冠假日酒店", "Crowne Plaza"),
        ("假日酒店", "Holiday Inn"),
        ("诺富特酒店", "Novotel"),
        ("万怡酒店", "Courtyard by Marriott"),
        ("希尔顿逸林酒店", "DoubleTree by Hilton"),
        ("福朋喜来登酒店", "Four Points by Sheraton"),
        ("美居酒店", "Mercure"),
    ),
    3: (
        ("全季酒店", "JI Hotel"),
        ("亚朵酒店", "Atour Hotel"),
        ("桔子酒店", "Orange Hotel"),
        ("维也纳酒店", "Vienna Hotel"),
        ("智选假日酒店", "Holiday Inn Express"),
        ("麗枫酒店", "Lavande Hotel"),
    ),
    2: (
        ("如家酒店", "Home Inn"),
        ("汉庭酒店", "Hanting Hotel"),
        ("7天酒店", "7 Days Inn"),
        ("锦江之星", "Jinjiang Inn"),
        ("格林豪泰酒店", "GreenTree Inn"),
    ),
}


EXTRA_STARS_BY_TIER: dict[int, tuple[int, ...]] = {
    1: (5, 4, 4, 3, 3),
    2: (5, 4, 3, 3),
    3: (4, 3, 3),
}
"""Beyond one hotel of each star level, bigger cities have more hotels."""
