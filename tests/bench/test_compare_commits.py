"""benchmarks/compare_commits.py without a server: its link set, its worktrees, its report."""

import subprocess
from urllib.parse import parse_qs

import pytest

from attention.explorer.query_params import from_values
from benchmarks import compare_commits as cc
from deploy.local import ROOT


def test_the_link_set_is_the_same_every_time_and_within_the_ranges():
    links = cc.link_set(16)
    assert links == cc.link_set(16) and len({x.query for x in links}) == 16
    for x in links:
        params = {k: v[0] for k, v in parse_qs(x.query).items()}
        config, notes = from_values(params)  # the app reads it back unchanged, no note
        assert notes == [] and len(config.tokens.texts) == x.tokens and config.heads == x.heads
        assert 32 <= x.tokens <= 64 and 4 <= x.heads <= 12


def test_each_session_opens_four_different_links():
    links = cc.link_set(16)
    for opened in cc.plan(10, links):
        assert len(opened) == cc.LINKS_PER_SESSION == len(set(opened))


def test_rounds_alternate_base_and_head_and_end_with_the_reference():
    assert cc.order(3) == [["base", "head", "reference"], ["head", "base", "reference"]] + [
        ["base", "head", "reference"]
    ]


def _worktrees() -> str:
    return subprocess.run(["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True).stdout


def test_a_worktree_is_checked_out_and_removed_even_on_an_error():
    with pytest.raises(KeyboardInterrupt), cc.worktree(ROOT, "HEAD") as tree:
        assert (tree / "app.py").exists() and (tree / "benchmarks" / "compare_commits.py").exists()
        assert str(tree) in _worktrees()
        raise KeyboardInterrupt  # Ctrl-C
    assert not tree.exists() and str(tree) not in _worktrees()


def test_the_working_tree_is_named_by_its_hash_when_clean():
    short = cc.git(ROOT, "rev-parse", "--short", "HEAD")
    assert cc.describe(ROOT, "HEAD") == short
    assert cc.describe(ROOT, None) in (short, f"working tree (on {short})")


def test_the_report_has_a_table_per_part_times_the_reference_and_head_over_base():
    results = {
        ("page_load", "Learn, CPU ms/load"): {"base": [100.0, 120.0], "head": [50.0, 60.0]},
        ("page_load", "CPU ms/load"): {"reference": [10.0, 12.0]},
        ("follow", "switch p95, s"): {"base": [2.0, 2.0], "head": [1.0, 1.0]},
    }
    errors = {("page_load", "base"): 0, ("page_load", "head"): 1, ("page_load", "reference"): 0}
    names = {"base": "abc1234", "head": "working tree (on def5678)", "reference": "(one heatmap)"}
    lines = cc.table("page_load", results, errors, names, 2)
    assert "| base abc1234 | Learn, CPU ms/load | 100.0 (10.0×) | 120.0 (10.0×) | 110.0 (10.0×) |" in lines
    assert "| reference (one heatmap) | CPU ms/load | 10.0 | 12.0 | 11.0 |" in lines
    assert "errors: base 0, head 1, reference 0" in lines
    assert cc.ratios(results).endswith("page_load Learn, CPU ms/load 0.50; follow switch p95, s 0.50")


def test_unknown_parts_are_refused():
    assert cc.parse(["--base", "main"]).parts == list(cc.PARTS)
    with pytest.raises(SystemExit):
        cc.parse(["--base", "main", "--parts", "page_load,nope"])
