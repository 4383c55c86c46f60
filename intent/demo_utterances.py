"""A small synthetic intent dataset: Chinese utterances for each SMP class, written for EvalSite.

No SMP2018 data is shipped. Each class has a few phrasings with slots; `utterances` fills them
from short lists with a seeded generator, so the same seed always gives the same dataset.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CITIES = ("北京", "上海", "广州", "深圳", "成都", "杭州", "武汉", "西安")
DAYS = ("今天", "明天", "后天", "周末", "下周一")
PEOPLE = ("妈妈", "老王", "张经理", "小李", "爸爸")
SINGERS = ("周杰伦", "王菲", "陈奕迅", "邓紫棋")
DISHES = ("红烧肉", "宫保鸡丁", "番茄炒蛋", "麻婆豆腐")

PHRASES: dict[str, tuple[str, ...]] = {
    "website": ("打开{site}官网", "帮我进入{site}的网站", "我要上{site}网页"),
    "tvchannel": ("切换到{tv}", "我想看{tv}", "打开{tv}频道"),
    "lottery": ("{day}双色球开奖号码是多少", "查一下大乐透最新开奖结果", "上一期福彩3D开了什么"),
    "chat": ("你好呀", "你今天开心吗", "给我讲讲你自己", "我有点无聊", "你叫什么名字"),
    "match": ("{day}有什么足球比赛", "湖人队昨天比赛比分多少", "中超积分榜查一下"),
    "datetime": ("{day}是几号", "现在几点了", "{day}星期几", "离春节还有几天"),
    "weather": ("{day}{city}天气怎么样", "{city}{day}会下雨吗", "{day}{city}气温多少度"),
    "bus": ("去{city}火车站坐几路公交", "附近的公交站在哪", "{city}的地铁几点停运"),
    "novel": ("我想看《斗破苍穹》小说", "推荐一本武侠小说", "打开我上次读的小说"),
    "video": ("播放电视剧《琅琊榜》", "我想看一部喜剧电影", "找一下最新的综艺视频"),
    "riddle": ("给我出一个谜语", "猜个字谜吧", "来一个脑筋急转弯"),
    "calc": ("三百五十加一百二十等于多少", "十二乘以十八是多少", "一百除以八等于几"),
    "telephone": ("给{person}打电话", "拨打{person}的手机", "呼叫{person}"),
    "health": ("感冒了吃什么药", "头疼怎么办", "高血压要注意什么"),
    "contacts": ("把{person}加到通讯录", "查一下{person}的电话号码", "删除联系人{person}"),
    "epg": ("{tv}{day}晚上播什么节目", "{day}的电视节目表", "{tv}几点播新闻联播"),
    "app": ("打开微信", "帮我下载一个地图应用", "卸载这个游戏应用"),
    "music": ("播放{singer}的歌", "来一首{singer}的新歌", "我想听{singer}的专辑"),
    "cookbook": ("{dish}怎么做", "教我做{dish}", "{dish}需要哪些材料"),
    "stock": ("今天上证指数多少", "查一下茅台的股价", "创业板{day}涨了吗"),
    "map": ("从这里到{city}怎么走", "导航到最近的加油站", "{city}博物馆在哪里"),
    "message": ("给{person}发短信说我晚点到", "发一条短信给{person}", "看看{person}发来的短信"),
    "poetry": ("背一首李白的诗", "床前明月光的下一句是什么", "给我念一首关于春天的诗"),
    "cinemas": ("{city}附近的电影院有什么电影", "{day}晚上的电影票还有吗", "查一下影城的排片"),
    "news": ("{day}有什么新闻", "播报一下体育新闻", "{city}最近有什么大新闻"),
    "flight": (
        "{day}从{city}飞{city2}的航班",
        "帮我订一张去{city}的机票",
        "查{city}到{city2}的飞机票",
    ),
    "translation": ("你好用英语怎么说", "把谢谢翻译成日语", "苹果的英文是什么"),
    "train": ("{day}{city}到{city2}的高铁票", "查一下去{city}的火车", "买一张到{city}的动车票"),
    "schedule": ("提醒我{day}下午三点开会", "设置一个{day}早上七点的闹钟", "我{day}有什么安排"),
    "radio": ("打开收音机", "我想听交通广播", "播放音乐电台"),
    "email": ("给{person}发一封邮件", "查看我的新邮件", "写邮件告诉{person}会议改期"),
}

SLOTS: dict[str, tuple[str, ...]] = {
    "site": ("百度", "淘宝", "新浪", "京东"),
    "tv": ("中央一台", "湖南卫视", "浙江卫视", "中央五套"),
    "day": DAYS,
    "city": CITIES,
    "city2": CITIES,
    "person": PEOPLE,
    "singer": SINGERS,
    "dish": DISHES,
}


@dataclass(frozen=True)
class DemoUtterance:
    id: str
    query: str
    label: str


def _fill(phrase: str, generator: random.Random) -> str:
    values = {name: generator.choice(options) for name, options in SLOTS.items()}
    return phrase.format(**values)


def utterances(per_class: int, *, seed: int, start: int = 0) -> list[DemoUtterance]:
    """``per_class`` utterances of every class, shuffled; ids count up from ``start``."""
    generator = random.Random(seed)
    rows = [
        (label, _fill(phrases[i % len(phrases)], generator))
        for label, phrases in PHRASES.items()
        for i in range(per_class)
    ]
    generator.shuffle(rows)
    return [DemoUtterance(str(start + n), query, label) for n, (label, query) in enumerate(rows)]
