"""The browser tests keep their screenshots in one folder, which git ignores and CI names."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.e2e.conftest import SHOTS

ROOT = Path(__file__).resolve().parents[2]


def test_every_browser_test_saves_its_screenshots_in_the_one_folder() -> None:
    assert SHOTS == ROOT / "test-artefacts" / "screenshots"
    takers = []
    for module in sorted((ROOT / "tests" / "e2e").glob("*.py")):
        text = module.read_text("utf-8")
        assert "test-artifacts" not in text, module.name
        if ".screenshot(" in text:
            takers.append(module.name)
            # The folder comes from the shared fixture module, not a path of the module's own.
            assert re.search(r"from tests\.e2e\.conftest import [^\n]*\bSHOTS\b", text), module.name
    assert {"test_crawl.py", "test_live_pages_browser.py"} <= set(takers)


def test_git_ignores_the_screenshots_and_ci_says_where_they_are() -> None:
    shot = (SHOTS / "home.en.390.png").relative_to(ROOT)
    ignored = subprocess.run(["git", "check-ignore", "-q", str(shot)], cwd=ROOT, check=False)
    assert ignored.returncode == 0
    assert "test-artifacts" not in (ROOT / ".gitignore").read_text("utf-8")
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert "test-artefacts/screenshots/" in ci
    # CI still runs the suite on SQLite, then again on PostgreSQL.
    assert ci.index("\nmake test\n") < ci.index('DATABASE_URL="postgres://')
