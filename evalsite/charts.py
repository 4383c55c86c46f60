"""Server-side SVG charts: a figure with its accessible title and description, and the lines,
boxes, points and texts it draws inside a plotting frame. Templates render a `Figure`
(``charts/_figure.html``); the numbers that place each shape are computed here and
by the page that builds the figure, so no JavaScript is needed.

Colours belong to the stylesheet, not to the figure: text, axes, grid and marks are drawn by
class, so that they follow the light and the dark theme. Only a colour that encodes a value (a
heatmap cell) is a ``fill`` attribute; the text drawn on it picks the class of the text colour
that contrasts with that fill (``on_fill``)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    css: str = "grid"


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float
    css: str
    fill: str
    label: str
    """The fill when it encodes a value; empty when the class's colour draws the box."""


@dataclass(frozen=True)
class Point:
    x: float
    y: float


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    anchor: str = "middle"
    css: str = ""
    vertical: bool = False
    title: str = ""
    """The full text, shown as the text's tooltip, when ``text`` is abbreviated."""


@dataclass
class Figure:
    """An SVG figure: its accessible title and description, and what to draw."""

    dom_id: str
    kind: str
    title: str
    description: str
    width: float
    height: float
    lines: list[Line] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)


@dataclass(frozen=True)
class Frame:
    """The plotting area of a figure and the value range of its axes."""

    left: float
    top: float
    width: float
    height: float
    low: float
    high: float

    def x(self, value: float) -> float:
        return round(self.left + (value - self.low) / (self.high - self.low) * self.width, 1)

    def y(self, value: float) -> float:
        return round(
            self.top + self.height - (value - self.low) / (self.high - self.low) * self.height, 1
        )


def _luminance(colour: str) -> float:
    """The WCAG relative luminance of a ``#rrggbb`` colour."""
    channels = [int(colour[index : index + 2], 16) / 255 for index in (1, 3, 5)]
    red, green, blue = (
        part / 12.92 if part <= 0.03928 else ((part + 0.055) / 1.055) ** 2.4 for part in channels
    )
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    light, dark = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


# The text colours of the classes ``on-light`` and ``on-dark`` (static/css/site.css).
ON_LIGHT = "#1d2330"
ON_DARK = "#ffffff"


def on_fill(fill: str) -> str:
    """The text class whose colour contrasts most with ``fill`` (a ``#rrggbb`` colour)."""
    return "on-dark" if contrast(fill, ON_DARK) > contrast(fill, ON_LIGHT) else "on-light"


def text_width(text: str, size: float = 11) -> float:
    """About how wide ``text`` is in pixels at ``size``: wide (CJK) characters take the full
    size, others a little over half of it."""
    return sum(
        size if unicodedata.east_asian_width(character) in "WF" else size * 0.57
        for character in text
    )


def abbreviated(text: str, width: float, size: float = 11) -> str:
    """``text``, cut with an ellipsis to fit ``width`` pixels at ``size``."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text.rstrip() + "…"
