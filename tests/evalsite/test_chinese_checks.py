"""The word check of the Chinese pages: it finds a single English word of the interface, and
leaves data, codes, URLs, numbers and code blocks alone."""

from __future__ import annotations

from tests.chinese_text import KnownData, catalog_words, english_words, english_words_in


def page(body: str) -> str:
    return f'<html lang="zh-hans"><body><main>{body}</main></body></html>'


def test_the_catalog_gives_the_interfaces_words_but_not_those_translations_keep() -> None:
    words = catalog_words()
    assert {"Systems", "Judges", "Persona", "Adults", "Campaign"} <= words
    # Kept as they are by the Chinese translations, so no sign of a missing one.
    assert not {"LLM", "CSV", "Sa"} & words
    assert not any(len(word) == 1 for word in words)


def test_a_label_of_one_or_two_words_is_found() -> None:
    found = english_words(page('<label for="id_systems">Systems</label><p>系统</p>'))
    assert found == ["Systems: Systems"]
    assert english_words(page('<th title="Persona age group">年龄组</th>')) != []
    assert english_words(page("<td>Adults</td>"))


def test_data_codes_urls_and_code_are_left_alone() -> None:
    html = page(
        "<td>judge1</td><td>book_flight</td><td>Trust Adults Club</td>"
        "<td>https://example.com/Systems</td><td>42</td><code>Systems</code>"
        "<pre>Judges</pre><td>LLM 评分</td>"
    )
    assert english_words(html, data=["Trust Adults Club"]) == []
    # The same words outside the data are the interface's.
    assert english_words(page("<td>Trust</td>"), data=["Trust Adults Club"]) == ["Trust: Trust"]


def test_data_is_taken_out_whole_not_out_of_a_longer_word() -> None:
    assert english_words_in(["Open"], KnownData(["en", "Op"])) == ["Open: Open"]
