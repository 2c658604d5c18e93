"""python -m attention.training: one loop for every run (a tiny task, the induction run), the same
options as ever, and the recipes by name."""

import pytest

from attention.model.checkpoint import load_gpt2
from attention.training import __main__ as cli


def test_a_tiny_task_reports_its_accuracy_and_time(capsys):
    cli.main(["--task", "reverse", "--steps", "20", "--seed", "1", "--threads", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("task reverse (reverse a sequence), ") and " 20 steps, " in lines[0]
    assert lines[0].endswith("(1 threads)") and lines[1].startswith("accuracy ")
    assert lines[2].startswith("weight on the expected keys (best head): ")


def test_the_induction_run_reports_its_heads_and_saves_a_gpt2_folder(capsys, tmp_path):
    cli.main(
        ["--task", "induction", "--layers", "1", "--seed", "3", "--steps", "20", "--save", str(tmp_path)]
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("induction, 1 layer, seed 3: 20 steps, ") and lines[0].endswith(
        "no phase change"
    )
    assert lines[1].startswith("best layer-0 previous-token head 0.")
    assert lines[2].startswith("accuracy on unseen sequences: second copy ")
    assert lines[3] == f"saved to {tmp_path}"
    assert load_gpt2(tmp_path).cfg["n_layers"] == 1


def test_a_recipe_is_called_by_name(monkeypatch):
    said = []
    monkeypatch.setitem(cli.RECIPES, "copying", said.append)
    cli.main(["copying", "--out", "somewhere"])
    assert said == [["--out", "somewhere"]]


def test_an_unknown_task_is_refused(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--task", "nope"])
    assert "invalid choice: 'nope'" in capsys.readouterr().err
