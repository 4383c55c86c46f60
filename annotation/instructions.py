"""A campaign's instructions as safe HTML: plain text with paragraphs, line breaks and links.

Everything is escaped first; the only markup that comes out is ``<p>``, ``<br>`` and ``<a>``
for ``http(s)`` addresses, written bare or as ``[text](https://...)``. No raw HTML, no other
scheme (``javascript:``, ``data:``) ever becomes a link.
"""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# Run on escaped text: an address stops at whitespace, quotes and angle brackets (escaped
# as entities, which start with "&"), and a trailing full stop or comma is the sentence's.
_URL = r"https?://[^\s&<>\"'\]\[()]+(?:&amp;[^\s&<>\"'\]\[()]+)*"
_LINK = re.compile(rf"\[(?P<text>[^\]\n]+)\]\((?P<href>{_URL})\)|(?P<bare>{_URL})")
_TRAILING = ".,;:!?"


def _link(match: re.Match[str]) -> str:
    if match.group("bare") is not None:
        href = match.group("bare")
        tail = ""
        while href and href[-1] in _TRAILING:
            href, tail = href[:-1], href[-1] + tail
        return f'<a href="{href}" rel="noopener noreferrer" target="_blank">{href}</a>{tail}'
    return (
        f'<a href="{match.group("href")}" rel="noopener noreferrer" target="_blank">'
        f"{match.group('text')}</a>"
    )


def format_instructions(text: str) -> SafeString:
    """Paragraphs at blank lines, ``<br>`` at single line breaks, http(s) links; all else text."""
    paragraphs = re.split(r"\n\s*\n", text.replace("\r\n", "\n").replace("\r", "\n").strip())
    html = []
    for paragraph in paragraphs:
        if not paragraph.strip():
            continue
        escaped = _LINK.sub(_link, escape(paragraph.strip()))
        html.append("<p>" + escaped.replace("\n", "<br>") + "</p>")
    return mark_safe("\n".join(html))
