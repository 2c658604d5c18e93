"""python -m attention.model weights, and --ids on every command: the JSON is the model's own trace
and log-probabilities; token ids given as they are read as the same text typed; a bad --ids is a
clean error (exit 2, no traceback). In process (main), and once as a command."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from attention.model import catalog, sentence
from attention.model.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
TEXT = "<|endoftext|>But Brutus says he was ambitious; And Brutus is an honourable man. But Brutus says"
WORDS = "the cat sat on a mat and the cat sat on a"  # the tiny model's tokenizer: whole words


@pytest.fixture(autouse=True)
def a_command(monkeypatch):
    """This process as the command line is run: no server (an AppTest earlier in the same process
    may have left it serving, which would open only the listed models)."""
    from tests.conftest import serving

    serving(monkeypatch, None)


@pytest.fixture(scope="module")
def tiny_qwen3(tmp_path_factory):
    """A tiny random Qwen3 folder that reads text with its own tokenizer.json (tiny_hf)."""
    pytest.importorskip("transformers")
    from tests.model.tiny_hf import tiny, word_tokenizer

    folder = tmp_path_factory.mktemp("qwen3")
    tiny("qwen3", folder)
    word_tokenizer(folder)
    return str(folder)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "source, text",
    [(catalog.SHAKESPEARE, TEXT), (catalog.SHAKESPEARE_QWEN3, TEXT), ("tiny-qwen3", WORDS)],
)
def test_weights_are_the_models_own_trace_and_next_its_log_softmax(capsys, source, text, tiny_qwen3):
    source = tiny_qwen3 if source == "tiny-qwen3" else source
    out = as_json(capsys, "weights", "--model", source, "--text", text)
    assert list(out) == ["ids", "weights", "kv_heads", "next"]  # exactly these
    model, info = catalog.load(source)
    ids, _ = sentence.encode(info, text, model.cfg["context_length"])
    assert out["ids"] == ids and len(ids) > 5
    trace = model.trace(torch.tensor([ids]))
    weights = np.array(out["weights"], dtype=np.float32)  # [layer][head][query][key]
    assert weights.shape == (model.layers, model.heads, len(ids), len(ids))
    np.testing.assert_array_equal(weights, trace.weights.numpy())
    assert out["kv_heads"] == len(set(model.kv_heads)) == model.cfg.get("n_kv_groups", model.heads)
    with torch.no_grad():
        logprobs = torch.log_softmax(model(torch.tensor([ids]))[0, -1].double(), -1)
    best = torch.topk(logprobs, 10)
    assert [x["id"] for x in out["next"]] == best.indices.tolist()
    np.testing.assert_allclose([x["logprob"] for x in out["next"]], best.values.numpy(), atol=1e-5)
    assert [x["token"] for x in out["next"]] == [info.words.shown(i) for i in best.indices.tolist()]


def test_gpt2_has_as_many_key_value_heads_as_heads_and_qwen3_fewer(capsys):
    assert as_json(capsys, "weights", "--model", catalog.SHAKESPEARE, "--text", TEXT)["kv_heads"] == 4
    assert as_json(capsys, "weights", "--model", catalog.SHAKESPEARE_QWEN3, "--text", TEXT)["kv_heads"] == 2


@pytest.mark.parametrize("source, text", [(catalog.SHAKESPEARE_QWEN3, TEXT), ("tiny-qwen3", WORDS)])
def test_ids_give_what_their_text_gives(capsys, source, text, tiny_qwen3):
    source = tiny_qwen3 if source == "tiny-qwen3" else source
    typed = as_json(capsys, "weights", "--model", source, "--text", text)
    given = as_json(capsys, "weights", "--model", source, "--ids", ",".join(map(str, typed["ids"])))
    assert given == typed
    code, shown, _ = run(capsys, "weights", "--model", source, "--ids", " , ".join(map(str, typed["ids"])))
    assert code == 0 and shown.splitlines()[0].endswith(f"{len(typed['ids'])} tokens")


def test_the_text_form_shows_every_head_and_stays_short_for_long_inputs(capsys):
    code, short, _ = run(capsys, "weights", "--model", catalog.SHAKESPEARE, "--text", "<|endoftext|>To be")
    assert code == 0
    assert short.count("(key/value head ") == 16  # 4 layers x 4 heads
    assert "layer 3, head 3 (key/value head 3):" in short and "   1.00" not in short.splitlines()[0]
    assert "log-probabilities" in short
    code, long, _ = run(capsys, "weights", "--model", catalog.SHAKESPEARE_QWEN3, "--text", TEXT * 4)
    assert code == 0 and "the last 12 of" in long
    assert "(key/value head 1)" in long  # heads 4..7 read key/value head 1
    assert len(long.splitlines()) < 4 * 8 * 14 + 20  # 12 rows a head, not 80


@pytest.mark.parametrize(
    "ids, message",
    [
        ("1,x,3", "write token ids as whole numbers separated by commas"),
        ("1.5", "write token ids as whole numbers separated by commas"),
        ("", "No token ids were given"),
        (" , ", "write token ids as whole numbers"),
        ("-1", "Token id -1 is not in this model's vocabulary: its ids run from 0 to 50,256."),
        ("50257", "Token id 50257 is not in this model's vocabulary"),
        (",".join(["1"] * 129), "129 token ids were given; this model reads at most 128 here."),
    ],
)
def test_bad_ids_are_a_clean_error(capsys, ids, message):
    code, out, err = run(capsys, "weights", "--model", catalog.SHAKESPEARE, "--ids", ids)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_bad_ids_on_a_small_vocabulary_say_its_size(capsys, tiny_qwen3):
    code, _, err = run(capsys, "lens", "--model", tiny_qwen3, "--ids", "3,96")
    assert code == 2 and "Token id 96 is not in this model's vocabulary: its ids run from 0 to 95." in err


def test_text_and_ids_are_one_or_the_other(capsys):
    for argv in (["--text", "a", "--ids", "1"], []):
        with pytest.raises(SystemExit) as exit_:
            main(["weights", "--model", catalog.BUNDLED, *argv])
        assert exit_.value.code == 2
    assert "--ids" in capsys.readouterr().err


BUNDLED = "<|endoftext|>A b c. A b c."


@pytest.mark.parametrize(
    "command, options",
    [
        ("ablate", ["--heads", "1.1"]),
        ("importance", []),
        ("lens", ["--top", "3"]),
        ("explain", ["--baseline", "zero"]),
    ],
)
def test_every_command_reads_ids_as_their_text(capsys, command, options):
    typed = as_json(capsys, command, "--model", catalog.BUNDLED, "--text", BUNDLED, *options)
    ids = ",".join(map(str, typed["ids"]))
    assert as_json(capsys, command, "--model", catalog.BUNDLED, "--ids", ids, *options) == typed


def test_importance_reads_the_corrupted_input_as_ids_too(capsys):
    corrupted = "<|endoftext|>A b c. A b d."
    typed = as_json(
        capsys, "importance", "--model", catalog.BUNDLED, "--text", BUNDLED, "--corrupted", corrupted
    )
    model, info = catalog.load(catalog.BUNDLED)
    ids = ",".join(map(str, sentence.encode(info, corrupted, 128)[0]))
    given = as_json(
        capsys, "importance", "--model", catalog.BUNDLED, "--text", BUNDLED, "--corrupted-ids", ids
    )
    assert given == typed and typed["patching"]["corrupted_ids"] == [int(i) for i in ids.split(",")]


def test_the_weights_command_runs_as_a_module(tiny_qwen3):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "attention.model",
            "weights",
            "--model",
            tiny_qwen3,
            "--ids",
            "1,2,3",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout)
    assert out["ids"] == [1, 2, 3] and out["kv_heads"] == 2 and len(out["next"]) == 10
    assert np.allclose(np.array(out["weights"]).sum(-1), 1.0, atol=1e-5)  # every row a distribution
