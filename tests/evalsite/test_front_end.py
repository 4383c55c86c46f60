"""The templates and static code keep every style in the stylesheet, so that the
Content-Security-Policy refuses inline styles; every table is captioned and its header cells
scoped; no template line is too long to read in a diff."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from evalsite.security_headers import content_security_policy

BASE = Path(settings.BASE_DIR)
TEMPLATES = sorted((BASE / "templates").rglob("*.html"))
SCRIPTS = sorted((BASE / "static" / "js").rglob("*.js"))
# The packages that serve pages; Python that renders HTML must not style it inline either.
SERVED = ("evalsite", "annotation", "liveeval", "intent", "fidelity")
LONGEST_LINE = 200


def _name(path: Path) -> str:
    return str(path.relative_to(BASE))


def test_the_policy_allows_no_inline_style_or_script() -> None:
    policy = content_security_policy("localhost:8000")
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["style-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy


def test_no_template_or_python_html_styles_inline() -> None:
    inline = re.compile(r"<style\b|\sstyle\s*=", re.IGNORECASE)
    python = [
        path
        for package in SERVED
        for path in (BASE / package).rglob("*.py")
        if "migrations" not in path.parts
    ]
    offences = [
        f"{_name(path)}:{number}: {match.group(0).strip()}"
        for path in [*TEMPLATES, *python]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if (match := inline.search(line))
    ]
    assert offences == []


def test_no_script_sets_a_style_attribute() -> None:
    """CSSOM (``element.style.width = …``) is allowed by the policy; a style attribute written
    as markup (``setAttribute("style", …)``, or ``style=`` in HTML a script inserts) is not."""
    markup = re.compile(r"""setAttribute\(\s*["']style["']|style=|<style""", re.IGNORECASE)
    offences = [
        f"{_name(path)}:{number}"
        for path in SCRIPTS
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if markup.search(line)
    ]
    assert SCRIPTS and offences == []


def test_every_table_has_a_caption_and_every_header_cell_a_scope() -> None:
    offences = []
    for path in TEMPLATES:
        text = path.read_text(encoding="utf-8")
        for table in re.finditer(r"<table\b[^>]*>", text):
            # The caption is the table's first child: nothing but space or template logic
            # may come between it and the table's start tag.
            after = text[table.end() :]
            if not re.match(r"(\s|\{%[^%]*%\})*<caption\b", after):
                line = text.count("\n", 0, table.start()) + 1
                offences.append(f"{_name(path)}:{line}: a table without a caption")
        for cell in re.finditer(r"<th\b[^>]*>", text):
            if not re.search(r"\bscope=\"(col|row|colgroup|rowgroup)\"", cell.group(0)):
                line = text.count("\n", 0, cell.start()) + 1
                offences.append(f"{_name(path)}:{line}: {cell.group(0)} without a scope")
    assert offences == []


def test_no_template_line_is_over_200_characters() -> None:
    offences = [
        f"{_name(path)}:{number} ({len(line)} characters)"
        for path in TEMPLATES
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if len(line) > LONGEST_LINE
    ]
    assert offences == []


def test_a_table_caption_can_be_hidden_but_still_read() -> None:
    """Where a heading already names a table, its caption is hidden from sight, not from
    screen readers: the class clips it rather than ``display: none``."""
    css = (BASE / "static" / "css" / "site.css").read_text(encoding="utf-8")
    rule = re.search(r"\.visually-hidden\s*\{([^}]*)\}", css)
    assert rule and "clip" in rule.group(1) and "display: none" not in rule.group(1)


def test_axe_is_a_test_asset_and_never_served() -> None:
    """axe-core is injected by the browser crawl from testing/; nothing of it is in static/."""
    served = [path for path in (BASE / "static").rglob("*") if "axe" in path.name.lower()]
    assert served == []
    assert (BASE / "testing" / "axe-core" / "axe.min.js").stat().st_size > 100_000
    assert all("axe" not in str(folder) for folder in settings.STATICFILES_DIRS)
