"""ui/coldstart.py: what a fresh server's first visit loads in the background is what app.py and the
Explorer import after the gate (one missing would be imported on the script thread, the frame gone)."""

import ast
from pathlib import Path

from ui import coldstart

ROOT = Path(__file__).resolve().parents[1]


def imported(path: Path, after_gate: bool) -> set[str]:
    """The app's own and the heavy libraries' modules `path` imports (after its gate call)."""
    found, gated = set(), not after_gate
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Expr) and "coldstart.gate" in ast.unparse(node):
            gated = True
        elif gated and isinstance(node, ast.ImportFrom) and node.module:
            for (
                alias
            ) in node.names:  # `from ui import url`: ui.url; `from ui.widgets import narrow`: ui.widgets
                name = f"{node.module}.{alias.name}"
                path = ROOT / name.replace(".", "/")
                found.add(name if path.is_dir() or path.with_suffix(".py").exists() else node.module)
    return {m for m in found if m.startswith("ui.") or m.split(".")[0] in {"torch", "pandas", "plotly"}}


def test_the_warm_up_loads_what_app_py_imports_after_the_gate():
    after = imported(ROOT / "app.py", after_gate=True)
    assert after and after <= set(coldstart.MODULES)


def test_the_warm_up_loads_what_the_explorer_imports():
    assert imported(ROOT / "pages" / "explorer.py", after_gate=False) - {"ui.router"} <= set(
        coldstart.MODULES
    )


def test_the_frame_fetches_the_plotly_chunk_beside_index_js():
    script = coldstart._fetch_plotly()
    assert "PlotlyChart." in script and "/static/js/index." in script and "<" not in script[8:-9]
