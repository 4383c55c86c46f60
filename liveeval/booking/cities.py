"""The cities of the booking world, with what the generator needs to make them plausible.

Coordinates give great-circle distances, from which flight times, fares, rail
distances and train times follow. The tier says how busy a city is: first-tier
cities get more flights and trains, and more expensive hotels. The areas are
well-known neighbourhoods, used to name hotels and to give them a district.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

EARTH_RADIUS_KM = 6371.0
RAIL_DETOUR = 1.25
"""Rail lines run about a quarter longer than the great circle between two cities."""


@dataclass(frozen=True)
class Area:
    name: str
    name_en: str
    district: str


@dataclass(frozen=True)
class CityInfo:
    name: str
    name_en: str
    code: str
    latitude: float
    longitude: float
    tier: int
    areas: tuple[Area, ...]


def _areas(*rows: tuple[str, str, str]) -> tuple[Area, ...]:
    return tuple(Area(*row) for row in rows)


CityRow = tuple[str, str, str, float, float, int, tuple[tuple[str, str, str], ...]]

_CITY_ROWS: tuple[CityRow, ...] = (
    # name, English name, code, latitude, longitude, tier, (area, English name, district)
    ("北京", "Beijing", "BJS", 39.904, 116.407, 1, (
        ("王府井", "Wangfujing", "东城区"),
        ("国贸", "Guomao", "朝阳区"),
        ("三里屯", "Sanlitun", "朝阳区"),
        ("中关村", "Zhongguancun", "海淀区"),
        ("西单", "Xidan", "西城区"),
        ("望京", "Wangjing", "朝阳区"),
    )),
    ("上海", "Shanghai", "SHA", 31.23, 121.474, 1, (
        ("外滩", "The Bund", "黄浦区"),
        ("陆家嘴", "Lujiazui", "浦东新区"),
        ("静安寺", "Jing'an Temple", "静安区"),
        ("徐家汇", "Xujiahui", "徐汇区"),
        ("虹桥", "Hongqiao", "长宁区"),
        ("人民广场", "People's Square", "黄浦区"),
    )),
    ("广州", "Guangzhou", "CAN", 23.129, 113.264, 1, (
        ("天河", "Tianhe", "天河区"),
        ("珠江新城", "Zhujiang New Town", "天河区"),
        ("北京路", "Beijing Road", "越秀区"),
        ("白云", "Baiyun", "白云区"),
        ("琶洲", "Pazhou", "海珠区"),
    )),
    ("深圳", "Shenzhen", "SZX", 22.543, 114.058, 1, (
        ("福田", "Futian", "福田区"),
        ("罗湖", "Luohu", "罗湖区"),
        ("科技园", "Science Park", "南山区"),
        ("华侨城", "OCT", "南山区"),
        ("宝安", "Bao'an", "宝安区"),
    )),
    ("成都", "Chengdu", "CTU", 30.573, 104.066, 2, (
        ("春熙路", "Chunxi Road", "锦江区"),
        ("天府广场", "Tianfu Square", "青羊区"),
        ("宽窄巷子", "Kuanzhai Alley", "青羊区"),
        ("武侯祠", "Wuhou Shrine", "武侯区"),
        ("太古里", "Taikoo Li", "锦江区"),
    )),
    ("杭州", "Hangzhou", "HGH", 30.274, 120.155, 2, (
        ("西湖", "West Lake", "西湖区"),
        ("武林", "Wulin", "拱墅区"),
        ("钱江新城", "Qianjiang New City", "上城区"),
        ("滨江", "Binjiang", "滨江区"),
        ("湖滨", "Hubin", "上城区"),
    )),
    ("南京", "Nanjing", "NKG", 32.06, 118.797, 2, (
        ("新街口", "Xinjiekou", "玄武区"),
        ("夫子庙", "Confucius Temple", "秦淮区"),
        ("河西", "Hexi", "建邺区"),
        ("鼓楼", "Gulou", "鼓楼区"),
        ("南站", "South Station", "雨花台区"),
    )),
    ("武汉", "Wuhan", "WUH", 30.593, 114.305, 2, (
        ("江汉路", "Jianghan Road", "江汉区"),
        ("光谷", "Optics Valley", "洪山区"),
        ("汉口", "Hankou", "江岸区"),
        ("武昌", "Wuchang", "武昌区"),
        ("楚河汉街", "Chuhe Han Street", "武昌区"),
    )),
    ("西安", "Xi'an", "SIA", 34.341, 108.94, 2, (
        ("钟楼", "Bell Tower", "碑林区"),
        ("大雁塔", "Big Wild Goose Pagoda", "雁塔区"),
        ("高新", "Hi-Tech Zone", "雁塔区"),
        ("曲江", "Qujiang", "雁塔区"),
        ("回民街", "Muslim Quarter", "莲湖区"),
    )),
    ("重庆", "Chongqing", "CKG", 29.563, 106.551, 2, (
        ("解放碑", "Jiefangbei", "渝中区"),
        ("观音桥", "Guanyinqiao", "江北区"),
        ("洪崖洞", "Hongyadong", "渝中区"),
        ("南坪", "Nanping", "南岸区"),
        ("沙坪坝", "Shapingba", "沙坪坝区"),
    )),
    ("天津", "Tianjin", "TSN", 39.125, 117.19, 2, (
        ("五大道", "Five Great Avenues", "和平区"),
        ("滨江道", "Binjiang Road", "和平区"),
        ("天津站", "Tianjin Station", "河北区"),
        ("梅江", "Meijiang", "河西区"),
        ("滨海", "Binhai", "滨海新区"),
    )),
    ("苏州", "Suzhou", "SZV", 31.299, 120.585, 2, (
        ("观前街", "Guanqian Street", "姑苏区"),
        ("金鸡湖", "Jinji Lake", "工业园区"),
        ("石路", "Shilu", "姑苏区"),
        ("狮山", "Shishan", "虎丘区"),
        ("平江路", "Pingjiang Road", "姑苏区"),
    )),
    ("长沙", "Changsha", "CSX", 28.228, 112.939, 3, (
        ("五一广场", "Wuyi Square", "芙蓉区"),
        ("橘子洲", "Orange Isle", "岳麓区"),
        ("梅溪湖", "Meixi Lake", "岳麓区"),
        ("火车站", "Railway Station", "芙蓉区"),
        ("开福寺", "Kaifu Temple", "开福区"),
    )),
    ("郑州", "Zhengzhou", "CGO", 34.747, 113.625, 3, (
        ("二七广场", "Erqi Square", "二七区"),
        ("郑东新区", "Zhengdong New District", "金水区"),
        ("花园路", "Huayuan Road", "金水区"),
        ("东站", "East Station", "管城回族区"),
        ("中原", "Zhongyuan", "中原区"),
    )),
    ("青岛", "Qingdao", "TAO", 36.067, 120.383, 3, (
        ("栈桥", "Zhanqiao Pier", "市南区"),
        ("五四广场", "May Fourth Square", "市南区"),
        ("八大关", "Badaguan", "市南区"),
        ("崂山", "Laoshan", "崂山区"),
        ("台东", "Taidong", "市北区"),
    )),
    ("厦门", "Xiamen", "XMN", 24.48, 118.089, 3, (
        ("鼓浪屿", "Gulangyu", "思明区"),
        ("中山路", "Zhongshan Road", "思明区"),
        ("环岛路", "Huandao Road", "思明区"),
        ("湖里", "Huli", "湖里区"),
        ("集美", "Jimei", "集美区"),
    )),
    ("昆明", "Kunming", "KMG", 25.038, 102.718, 3, (
        ("翠湖", "Green Lake", "五华区"),
        ("南屏街", "Nanping Street", "五华区"),
        ("滇池", "Dianchi Lake", "西山区"),
        ("金马碧鸡", "Jinma Biji", "西山区"),
        ("呈贡", "Chenggong", "呈贡区"),
    )),
    ("哈尔滨", "Harbin", "HRB", 45.803, 126.535, 3, (
        ("中央大街", "Central Street", "道里区"),
        ("松花江", "Songhua River", "道里区"),
        ("哈西", "Haxi", "南岗区"),
        ("红博", "Hongbo", "南岗区"),
        ("太阳岛", "Sun Island", "松北区"),
    )),
    ("大连", "Dalian", "DLC", 38.914, 121.615, 3, (
        ("星海广场", "Xinghai Square", "沙河口区"),
        ("中山广场", "Zhongshan Square", "中山区"),
        ("人民路", "Renmin Road", "中山区"),
        ("金石滩", "Golden Pebble Beach", "金州区"),
        ("西安路", "Xi'an Road", "沙河口区"),
    )),
    ("沈阳", "Shenyang", "SHE", 41.806, 123.432, 3, (
        ("中街", "Zhongjie", "沈河区"),
        ("太原街", "Taiyuan Street", "和平区"),
        ("北陵", "Beiling", "皇姑区"),
        ("浑南", "Hunnan", "浑南区"),
        ("北站", "North Station", "沈河区"),
    )),
)  # fmt: skip

CITIES: tuple[CityInfo, ...] = tuple(
    CityInfo(name, name_en, code, latitude, longitude, tier, _areas(*areas))
    for name, name_en, code, latitude, longitude, tier, areas in _CITY_ROWS
)

CITY_BY_NAME: dict[str, CityInfo] = {city.name: city for city in CITIES}

DISTRICT_EN: dict[str, str] = {
    "上城区": "Shangcheng", "东城区": "Dongcheng", "中原区": "Zhongyuan", "中山区": "Zhongshan",
    "二七区": "Erqi", "五华区": "Wuhua", "南山区": "Nanshan", "南岗区": "Nangang",
    "南岸区": "Nan'an", "呈贡区": "Chenggong", "和平区": "Heping", "天河区": "Tianhe",
    "姑苏区": "Gusu", "宝安区": "Bao'an", "岳麓区": "Yuelu", "崂山区": "Laoshan",
    "工业园区": "Industrial Park", "市北区": "Shibei", "市南区": "Shinan", "建邺区": "Jianye",
    "开福区": "Kaifu", "徐汇区": "Xuhui", "思明区": "Siming", "拱墅区": "Gongshu",
    "朝阳区": "Chaoyang", "松北区": "Songbei", "武侯区": "Wuhou", "武昌区": "Wuchang",
    "江北区": "Jiangbei", "江岸区": "Jiang'an", "江汉区": "Jianghan", "沈河区": "Shenhe",
    "沙坪坝区": "Shapingba", "沙河口区": "Shahekou", "河北区": "Hebei", "河西区": "Hexi",
    "洪山区": "Hongshan", "浑南区": "Hunnan", "浦东新区": "Pudong New Area",
    "海淀区": "Haidian", "海珠区": "Haizhu", "渝中区": "Yuzhong", "湖里区": "Huli",
    "滨江区": "Binjiang", "滨海新区": "Binhai New Area", "玄武区": "Xuanwu", "白云区": "Baiyun",
    "皇姑区": "Huanggu", "碑林区": "Beilin", "福田区": "Futian", "秦淮区": "Qinhuai",
    "管城回族区": "Guancheng Hui", "罗湖区": "Luohu", "芙蓉区": "Furong", "莲湖区": "Lianhu",
    "虎丘区": "Huqiu", "西城区": "Xicheng", "西山区": "Xishan", "西湖区": "Xihu",
    "越秀区": "Yuexiu", "道里区": "Daoli", "金州区": "Jinzhou", "金水区": "Jinshui",
    "锦江区": "Jinjiang", "长宁区": "Changning", "雁塔区": "Yanta", "集美区": "Jimei",
    "雨花台区": "Yuhuatai", "青羊区": "Qingyang", "静安区": "Jing'an", "黄浦区": "Huangpu",
    "鼓楼区": "Gulou",
}  # fmt: skip
"""Every district of the city list in English ("New Area"s keep their official name)."""


def district_en(district: str) -> str:
    """A district's English name, e.g. 思明区 → "Siming District"."""
    name = DISTRICT_EN.get(district)
    if name is None:
        return district
    return name if name.endswith("Area") or name.endswith("Park") else f"{name} District"


def _place_names() -> list[tuple[str, str]]:
    names = {district: district_en(district) for district in DISTRICT_EN}
    for city in CITIES:
        names[city.name] = city.name_en
        names.update({area.name: area.name_en for area in city.areas})
    # Longest first, so that 浦东新区 is replaced before a shorter name inside it.
    return sorted(names.items(), key=lambda pair: -len(pair[0]))


PLACE_NAMES = _place_names()


def in_english(text: str) -> str:
    """``text`` with every city, area and district of the booking world named in English."""
    for chinese, english in PLACE_NAMES:
        if chinese in text:
            text = text.replace(chinese, english)
    return text


def great_circle_km(a: CityInfo, b: CityInfo) -> float:
    """Haversine distance between two city centres."""
    lat1, lon1, lat2, lon2 = map(math.radians, (a.latitude, a.longitude, b.latitude, b.longitude))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h))


def rail_km(a: CityInfo, b: CityInfo) -> int:
    return round(great_circle_km(a, b) * RAIL_DETOUR)
