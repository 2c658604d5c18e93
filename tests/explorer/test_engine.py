"""engine.run(config): the Explorer's one entry point. Determinism under threads, notebook equivalence."""

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
import torch

from attention.chapter3.embeddings import random_embedding
from attention.chapter3.modules import MultiHeadAttention
from attention.devices import resolve_device
from attention.explorer import ExplorerConfig, run
from attention.explorer.engine import build_module
from tests import book
from tests.threads import Overlap, in_threads

DROPOUT = ExplorerConfig(
    text="the cat sat on the mat because the mat was warm",
    embedding="random",
    d_in=8,
    variant="mha",
    d_out=8,
    heads=4,
    dropout=0.5,
    train=True,
    seed=2024,
)


def test_default_run_reproduces_the_book():
    trace = run(ExplorerConfig())
    expected = torch.tensor(book.MHA_OUTPUT)
    torch.testing.assert_close(trace.output[0], expected, atol=1e-4, rtol=0)
    assert trace.tokens.texts[1] == "journey" and trace.config == ExplorerConfig().normalised()
    assert trace.device == "cpu" and trace.seconds > 0


def test_run_equals_a_readers_notebook():
    c = DROPOUT
    tokens = c.tokens
    torch.manual_seed(c.seed)
    x = torch.nn.Embedding(len(tokens.vocab), c.d_in)(torch.tensor(tokens.ids)).detach()
    torch.manual_seed(c.seed)
    module = MultiHeadAttention(c.d_in, c.d_out, len(tokens), c.dropout, c.heads, c.bias)
    module.train()
    with torch.no_grad():
        notebook = module(x.unsqueeze(0))
    trace = run(c)
    assert torch.equal(trace.x[0], x)
    for (_, a), (_, b) in zip(module.named_parameters(), build_module(c)[0].named_parameters(), strict=True):
        assert torch.equal(a, b)
    assert torch.equal(trace.output, notebook)  # same weights and the same dropout mask


def test_same_config_same_numbers_and_dropout_mask():
    a, b = run(DROPOUT), run(DROPOUT)
    assert torch.equal(a.dropout_mask, b.dropout_mask) and torch.equal(a.output, b.output)
    other = run(replace(DROPOUT, seed=2025))
    assert not torch.equal(a.dropout_mask, other.dropout_mask)


def test_eight_threads_agree_while_others_use_the_global_rng():
    reference = run(DROPOUT)
    stop = threading.Event()

    def disturb():  # a notebook, or another library, hammering the global RNG
        while not stop.is_set():
            torch.manual_seed(0)
            torch.rand(64)

    noise = [threading.Thread(target=disturb) for _ in range(2)]
    for t in noise:
        t.start()
    try:
        with ThreadPoolExecutor(8) as pool:
            traces = list(pool.map(lambda _: run(DROPOUT), range(32)))
    finally:
        stop.set()
        for t in noise:
            t.join()
    for t in traces:
        assert torch.equal(t.dropout_mask, reference.dropout_mask)
        assert torch.equal(t.weights, reference.weights) and torch.equal(t.output, reference.output)


@pytest.mark.parametrize(
    "variant", ["simplified", "v1", "v2", "causal", "wrapper", "mha", "separate_dv", "stacked_heads"]
)
def test_every_variant_runs_and_knobs_change_the_numbers(variant):
    base = ExplorerConfig(
        text="one two three four",
        embedding="random",
        d_in=6,
        variant=variant,
        d_out=6,
        d_v=4,
        heads=2,
        seed=1,
    )
    trace = run(base)
    assert trace.weights.shape[-1] == 4 and trace.output.shape[-1] == base.output_width
    torch.testing.assert_close(trace.weights.sum(-1), torch.ones_like(trace.weights.sum(-1)))
    assert not torch.equal(run(replace(base, seed=2)).output, trace.output)
    for knob, value in [("heads", 3), ("causal", False), ("bias", True), ("d_v", 5)]:
        if base.has(knob):
            changed = run(replace(base, **{knob: value}))
            assert changed.output.shape != trace.output.shape or not torch.equal(
                changed.output, trace.output
            ), knob


def test_random_embedding_is_the_run_input():
    c = ExplorerConfig(text="to be or not to be", embedding="random", d_in=5, seed=7)
    assert torch.equal(run(c).x[0], random_embedding(c.tokens, 5, 7))


def test_unavailable_device_falls_back_to_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    choice = resolve_device("cuda")
    assert choice.device == "cpu" and "No CUDA GPU is available" in choice.reason
    trace = run(ExplorerConfig(device="cuda"))
    assert trace.device == "cpu" and trace.config.device == "cuda"


def test_auto_prefers_cuda_when_present(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: "Fake GPU")
    choice = resolve_device("auto")
    assert choice.device == "cuda" and choice.name == "Fake GPU" and choice.reason is None
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto").device in ("cpu", "mps")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_matches_cpu():
    gpu, cpu = run(replace(DROPOUT, device="cuda")), run(replace(DROPOUT, device="cpu"))
    assert gpu.device == "cuda" and gpu.weights.device.type == "cpu"
    assert torch.equal(gpu.dropout_mask, cpu.dropout_mask)
    torch.testing.assert_close(gpu.output, cpu.output, atol=1e-5, rtol=1e-4)


def test_at_most_max_concurrent_runs_compute_at_once(monkeypatch):
    import importlib

    run_module = importlib.import_module("attention.explorer.engine")
    overlap = Overlap()
    monkeypatch.setattr(run_module, "_run", lambda config: overlap.busy(0.05))
    in_threads(12, lambda n: run_module.run(None))
    from attention import slots

    assert overlap.peak == slots.MAX_CONCURRENT_RUNS


def test_torch_threads_for_a_shared_server(monkeypatch):
    import torch

    from attention.devices import configure_torch_threads

    before = torch.get_num_threads()
    try:
        monkeypatch.setenv("ATTENTION_TORCH_THREADS", "2")
        assert configure_torch_threads() == 2 == torch.get_num_threads()
        monkeypatch.setenv("ATTENTION_TORCH_THREADS", "lots")
        assert configure_torch_threads() == 1
        monkeypatch.delenv("ATTENTION_TORCH_THREADS")
        assert configure_torch_threads() == 1
    finally:
        torch.set_num_threads(before)
