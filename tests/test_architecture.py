"""The layout promises of docs/architecture.md, checked against the tree.

Each served module holds one concept and stays short enough to read; views stay thin; the
statistics never meet the HTTP layer in one module; dependencies run one way (apps depend on
``evalsite``, ``liveeval`` never on ``annotation``); and the architecture document names every
module that exists and nothing that does not.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVED = ("evalsite", "liveeval", "annotation", "intent", "fidelity")
MAX_MODULE_LINES = 800
MAX_VIEW_LINES = 25
ARCHITECTURE = ROOT / "docs" / "architecture.md"
# The composition root names the apps it assembles; nothing else in evalsite may.
COMPOSITION_ROOT = {
    "evalsite/settings.py",
    "evalsite/urls.py",
    "evalsite/routing.py",
    "evalsite/asgi.py",
}
NUMERIC = {"numpy", "pandas", "scipy"}


def served_modules() -> list[Path]:
    return sorted(
        path
        for package in SERVED
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def imported_modules(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def section(title: str) -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/architecture.md has no '## {title}' section"
    return match.group(1)


def exempt_from_length() -> dict[str, str]:
    exempt: dict[str, str] = {}
    for line in section("Exempt from the 800-line rule").splitlines():
        match = re.match(r"^- `([^`]+\.py)`: (.+)$", line.strip())
        if match:
            exempt[match.group(1)] = match.group(2)
    return exempt


def test_no_served_module_is_longer_than_800_lines() -> None:
    exempt = exempt_from_length()
    long = {
        rel(path): n
        for path in served_modules()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert set(long) <= set(exempt), f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_every_exemption_names_a_long_module_and_a_reason() -> None:
    for path, reason in exempt_from_length().items():
        assert (ROOT / path).is_file(), f"{path} is exempted but does not exist"
        assert len((ROOT / path).read_text(encoding="utf-8").splitlines()) > MAX_MODULE_LINES
        assert len(reason) > 10


def is_view_module(path: Path) -> bool:
    return path.stem == "views" or path.stem.endswith("_views") or path.parent.name == "views"


def is_view(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return bool(node.args.args) and node.args.args[0].arg == "request"


def test_no_view_function_is_longer_than_25_lines() -> None:
    long: list[str] = []
    for path in filter(is_view_module, served_modules()):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            # A view is a function that takes the request first.
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and is_view(node):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_VIEW_LINES:
                    long.append(f"{rel(path)}:{node.lineno} {node.name} ({length} lines)")
    assert not long, "views over 25 lines:\n" + "\n".join(long)


def test_no_module_mixes_http_and_numerical_libraries() -> None:
    mixed = []
    for path in served_modules():
        imports = imported_modules(ast.parse(path.read_text(encoding="utf-8")))
        web = any(name.startswith(("django.http", "django.shortcuts")) for name in imports)
        numeric = any(name.split(".")[0] in NUMERIC for name in imports)
        if web and numeric:
            mixed.append(rel(path))
    assert not mixed, (
        f"modules importing both django.http/shortcuts and numpy/pandas/scipy: {mixed}"
    )


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("evalsite", {"liveeval", "annotation", "intent", "fidelity"}),
        ("liveeval", {"annotation", "intent", "fidelity"}),
        ("intent", {"annotation", "fidelity"}),
        ("annotation", {"fidelity"}),
    ],
)
def test_dependencies_run_one_way(package: str, forbidden: set[str]) -> None:
    wrong = []
    for path in served_modules():
        if path.relative_to(ROOT).parts[0] != package or rel(path) in COMPOSITION_ROOT:
            continue
        imports = imported_modules(ast.parse(path.read_text(encoding="utf-8")))
        wrong += [
            f"{rel(path)} imports {name}" for name in imports if name.split(".")[0] in forbidden
        ]
    assert not wrong, "\n".join(wrong)


def documented_modules() -> set[str]:
    return set(
        re.findall(
            r"`((?:evalsite|liveeval|annotation|intent|fidelity|static)/[\w/.-]+\.(?:py|js))`",
            section("Modules"),
        )
    )


def actual_modules() -> set[str]:
    modules = {rel(path) for path in served_modules() if path.name != "__init__.py"}
    modules |= {rel(path) for path in (ROOT / "static" / "js").glob("*.js")}
    return modules


def test_the_architecture_document_names_every_module() -> None:
    missing = sorted(actual_modules() - documented_modules())
    assert not missing, "modules missing from docs/architecture.md:\n" + "\n".join(missing)


def test_the_architecture_document_names_each_module_once() -> None:
    entries = re.findall(r"^- `([^`]+)`:", section("Modules"), re.M)
    repeated = sorted({entry for entry in entries if entries.count(entry) > 1})
    assert not repeated, "docs/architecture.md lists these modules more than once:\n" + "\n".join(
        repeated
    )


def test_the_architecture_document_names_no_module_that_is_gone() -> None:
    gone = sorted(documented_modules() - actual_modules())
    assert not gone, "docs/architecture.md names modules that do not exist:\n" + "\n".join(gone)


def test_the_readme_links_every_document() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    unlinked = [
        path.name
        for path in sorted((ROOT / "docs").glob("*.md"))
        if f"](docs/{path.name})" not in readme
    ]
    assert not unlinked, f"README.md does not link {unlinked}"


def test_the_documents_name_no_module_that_is_gone() -> None:
    gone = []
    for document in sorted((ROOT / "docs").glob("*.md")):
        named = re.findall(
            r"`((?:evalsite|liveeval|annotation|intent|testing)/[\w/]+\.py)",
            document.read_text(encoding="utf-8"),
        )
        gone += [f"{document.name}: {path}" for path in named if not (ROOT / path).is_file()]
    assert not gone, "documents name modules that do not exist:\n" + "\n".join(gone)


def test_downloads_are_named_in_one_place() -> None:
    """Every file download goes through evalsite/downloads.py, the one that names it."""
    setting = [
        str(path.relative_to(ROOT))
        for path in served_modules()
        if '"Content-Disposition"' in path.read_text(encoding="utf-8")
    ]
    assert setting == ["evalsite/downloads.py"]


@pytest.mark.processes
def test_starting_django_imports_neither_pandas_nor_scipy() -> None:
    """Every process (daphne, a job worker, a command) starts Django; only the ones that compute
    a report or a statistic pay for pandas and scipy, which take about a second to import."""
    code = (
        "import sys, django; django.setup(); "
        "print(sorted(name for name in ('pandas', 'scipy') if name in sys.modules))"
    )
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "evalsite.settings"}
    found = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "[]", found.stdout + found.stderr
