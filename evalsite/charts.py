"""Server-side SVG charts: a figure with its accessible title and description, and the lines,
boxes, points and texts it draws inside a plotting frame. Templates render a `Figure`
(``charts/_figure.html``); the numbers that place each shape are computed here and
by the page that builds the figure, so no JavaScript is needed."""

from __future__ import annotations

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
    fill: str = "#333"
    vertical: bool = False


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
