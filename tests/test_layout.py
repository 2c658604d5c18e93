"""The house's rules, read from the tree: one room per concept, rooms that point down (import-linter's
contracts in pyproject.toml: no Streamlit in the backend, pages -> ui -> attention), no import cycle
between modules, modules and pages small enough to read."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "attention"
ROOMS = {"chapter3", "modern", "explorer", "lessons", "model", "training", "figures", "bench", "i18n"}
ROOMS |= {"classroom"}  # class mode
# bundled: the old command's two lines
SHARED = {"settings", "slots", "devices", "errors", "readonly", "bundled"}


def modules() -> dict[str, Path]:
    """attention's modules by dotted name (a package by its own name)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The attention modules `path` imports, anywhere in it (a function's own imports too), each
    resolved to the longest known name: `from attention.model import gpt` -> attention.model.gpt."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports. A module importing its own package (or a package its
    own submodules, which its __init__ does to list its public names) is how Python packages
    work, not a cycle between two concepts: those edges are left out."""
    known = modules()
    graph = {}
    for name, path in known.items():
        targets = imports(path, known) - {name}
        graph[name] = {t for t in targets if not name.startswith(t + ".") and not t.startswith(name + ".")}
    return graph


def test_no_import_cycle_in_attention():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")], capture_output=True, text=True, cwd=root
    )


def test_the_layering_contracts_hold():
    """pyproject.toml's import-linter contracts: pages -> ui -> attention, no Streamlit in attention,
    the model never imports the hub, each package's rooms pointing down."""
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout[-2000:]
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "upward", "contract"),
    [
        ("attention/chapter3/trace.py", "import attention.explorer.engine", "attention's rooms point down"),
        ("attention/modern/rope.py", "import attention.lessons.modern", "attention's rooms point down"),
        ("attention/figures/layout.py", "import ui.widgets", "attention never imports Streamlit or the UI"),
        ("attention/classroom/rules.py", "import attention.explorer", "a class needs no attention machinery"),
        ("ui/widgets.py", "import ui.model.views", "ui's rooms point down"),
        ("ui/explorer/views.py", "import ui.compare", "ui's rooms point down"),
        ("ui/internals.py", "import ui.widgets", "ui's rooms point down"),
    ],
)
def test_an_upward_import_breaks_a_contract(tmp_path, module, upward, contract):
    """The same contracts on a copy of the tree with one import pointing up: lint-imports fails,
    naming the contract."""
    for package in ("attention", "ui"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    target = tmp_path / module
    target.write_text(target.read_text() + f"\n{upward}  # noqa\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert f"{contract} BROKEN" in result.stdout


def test_attention_holds_rooms_and_a_few_shared_modules():
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    rooms = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert rooms == ROOMS and top == SHARED


@pytest.mark.parametrize("room", sorted(ROOMS | {""}))
def test_every_room_says_its_job(room):
    doc = ast.get_docstring(ast.parse((PACKAGE / room / "__init__.py").read_text()))
    assert doc and len(doc) > 60


def test_no_module_of_attention_is_over_400_lines():
    long = {name: n for name, path in modules().items() if (n := len(path.read_text().splitlines())) > 400}
    assert long == {}


UI_ROOMS = {
    "classroom",
    "explorer",
    "learn",
    "model",
    "modern",
    "train",
}  # a page with several modules has a room
UI_SHARED = {
    "cache",
    "chrome",
    "coldstart",
    "internals",
    "language",
    "router",
    "slots",
    "url",
    "wakeups",
    "widgets",
}
UI_ONE_MODULE_PAGES = {"compare", "languages", "scaling"}


def test_ui_holds_a_room_per_page_and_the_shared_modules():
    ui = ROOT / "ui"
    top = {p.stem for p in ui.glob("*.py")} - {"__init__"}
    rooms = {p.name for p in ui.iterdir() if (p / "__init__.py").exists()}
    assert rooms == UI_ROOMS and top == UI_SHARED | UI_ONE_MODULE_PAGES
    for room in rooms:
        assert len(ast.get_docstring(ast.parse((ui / room / "__init__.py").read_text())) or "") > 60


def test_no_module_of_ui_is_over_400_lines_or_has_a_function_over_60():
    for path in (ROOT / "ui").rglob("*.py"):
        source = path.read_text()
        assert len(source.splitlines()) <= 400, path.relative_to(ROOT)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno - node.lineno + 1 <= 60, f"{path.relative_to(ROOT)}: {node.name}"


def test_pages_are_short_compositions():
    for page in (ROOT / "pages").glob("*.py"):
        source = page.read_text()
        assert len(source.splitlines()) < 200, page.name
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno - node.lineno + 1 <= 60, f"{page.name}: {node.name}"
