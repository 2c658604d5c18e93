"""Every command the README and docs/ name still starts (each `python -m MODULE` and each
`python SCRIPT.py` answers --help), and every link and repository path they give exists."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXT = {path: path.read_text() for path in DOCS}
ALL = "\n".join(TEXT.values())
MODULES = sorted(set(re.findall(r"python -m ([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)\b", ALL)) - {"pytest"})
SCRIPTS = sorted(set(re.findall(r"python ((?:deploy|benchmarks)/[a-z_]+\.py)\b", ALL)))
OLD = [["attention.bundled"], ["attention.training", "bundled"]]  # old invocations, still working


@pytest.mark.slow
@pytest.mark.parametrize(
    "command", [[m] for m in MODULES] + [[s] for s in SCRIPTS] + [["attention.training", "copying"], *OLD]
)
def test_a_documented_command_starts(command):
    run = [sys.executable, *command] if command[0].endswith(".py") else [sys.executable, "-m", *command]
    result = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0 and "usage:" in result.stdout, result.stderr[-2000:]


def test_the_docs_name_the_commands():
    named = {"attention.bench", "attention.training", "attention.model", "benchmarks.classroom"}
    assert named <= set(MODULES)
    assert SCRIPTS == ["deploy/replicas.py"]


def test_every_command_the_docs_showed_before_the_move_is_still_shown():
    """The README's commands moved into docs/ (2026-11-26): none was lost on the way."""
    before = {
        "attention.bench", "attention.model", "attention.training", "benchmarks.classroom",
        "benchmarks.explorer_update", "benchmarks.gpt_trace", "benchmarks.importance",
        "benchmarks.long_text", "benchmarks.memory_budget", "benchmarks.modern",
    }  # fmt: skip
    assert before <= set(MODULES)


def test_the_readme_opens_with_the_two_commands():
    readme = TEXT[ROOT / "README.md"]
    app = "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/streamlit run"
    first = readme.index(app)
    assert readme.index("bash tests/run.sh") > first
    assert "--server.address localhost" in readme[first : first + 200]
    assert "--server.address 0.0.0.0" in readme and "PIP_RETRIES=1" in readme
    assert len(readme.splitlines()) <= 250


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    heading = re.sub(r"[`*]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", TEXT[path], flags=re.S)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_link_resolves(path):
    for target in re.findall(r"\]\(([^)\s]+)\)", TEXT[path]):
        if target.startswith("http"):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), f"{path.name}: {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in anchors(linked), f"{path.name}: {target}"


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_repository_path_named_exists(path):
    named = re.findall(r"`((?:attention|ui|pages|tests|deploy|benchmarks|assets)/[\w./-]*\w)`", TEXT[path])
    missing = [name for name in named if not (ROOT / name).exists()]
    assert missing == [], f"{path.name}: {missing}"


def test_the_load_script_finds_its_reference_page():
    """Read, not imported: tests never import benchmarks (the benchmark imports tests' client)."""
    script = (ROOT / "benchmarks" / "classroom.py").read_text()
    assert 'Path(__file__).resolve().parent / "reference_app.py"' in script
    assert (ROOT / "benchmarks" / "reference_app.py").is_file()
