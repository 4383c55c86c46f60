from __future__ import annotations

from annotation.concept.catalogs import Catalog, CatalogItem
from fidelity.matching import mentioned_items, study_catalog
from fidelity.models import Study

CATALOG = Catalog(
    [
        CatalogItem("m1", "Heat (1995)"),
        CatalogItem("m2", "Jaws (1975)"),
        CatalogItem("z1", "霸王别姬"),
    ]
)


def test_titles_are_found_in_order_with_repeats() -> None:
    text = 'I love "Heat", then Jaws (1975), and "Heat" again; "Nope" is unknown.'
    assert mentioned_items(text, CATALOG) == ("m1", "m2", "m1")


def test_chinese_title_marks_and_curly_quotes_are_found_once() -> None:
    assert mentioned_items("我想聊《霸王别姬》和“Heat”。", CATALOG) == ("z1", "m1")
    assert mentioned_items("没有片名。", CATALOG) == ()


def test_without_a_catalog_the_study_s_items_are_one(study: Study) -> None:
    assert mentioned_items('Maybe "Alien" or "Up".', study_catalog(study)) == ("m2", "m5")
