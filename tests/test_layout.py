"""The house's rules, read from the tree: one room per concept, no import cycle, no Streamlit in
the backend, modules and pages small enough to read."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "attention"
ROOMS = {"chapter3", "modern", "model", "training", "figures", "bench"}
SHARED = {"settings", "slots", "devices", "errors", "bundled"}  # bundled: the old command's two lines


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


def test_the_model_never_imports_the_hub():
    graph = import_graph()
    assert "attention.model.hub" not in graph["attention.model.checkpoint"]
    assert "attention.model.hub" not in graph["attention.model.gpt"]


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


def test_pages_are_short_compositions():
    for page in (ROOT / "pages").glob("*.py"):
        source = page.read_text()
        assert len(source.splitlines()) < 200, page.name
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno - node.lineno + 1 <= 60, f"{page.name}: {node.name}"


@pytest.mark.slow  # ~2.5 s: imports every module in a fresh interpreter
def test_no_module_of_attention_imports_streamlit():
    names = ", ".join(sorted(n for n in modules() if not n.endswith("__main__")))
    code = f"import sys, {names}; print(sorted(m for m in sys.modules if m.startswith('streamlit')))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"
