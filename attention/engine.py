"""The engine: run(config) -> AttentionTrace, the one call the Explorer makes.

config -> tokens -> embeddings -> module -> trace. Every random draw comes from local
generators seeded with config.seed, in the order a reader's notebook makes them:

    torch.manual_seed(seed); x = nn.Embedding(V, d_in)(ids)   # embedding (random source)
    torch.manual_seed(seed); module = Class(...)              # parameters
    module.train(); module(x)                                 # dropout mask, same stream

so run(config) gives the numbers that notebook prints, in any thread, whatever other threads
do with torch's global RNG.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import torch
import torch.nn as nn

from attention import modules
from attention.config import ExplorerConfig
from attention.devices import resolve_device, synchronize
from attention.embeddings import embed
from attention.settings import number
from attention.trace import AttentionTrace


def build_module(config: ExplorerConfig) -> tuple[nn.Module, torch.Generator]:
    """The config's module, seeded, in train or eval mode; and the generator, positioned after
    the parameter draws (where the notebook's dropout draw would start)."""
    c = config.normalised()
    module = c.spec.build(c, len(c.tokens))
    generator = torch.Generator().manual_seed(c.seed)
    modules.reset_parameters(module, generator)
    module.train(c.train)
    return module, generator


def module_input(config: ExplorerConfig, x: torch.Tensor) -> torch.Tensor:
    """x (T, d_in) shaped as the variant's forward expects: batched (1, T, d_in) from 3.5 on."""
    return x.unsqueeze(0) if config.spec.batched else x


# At most this many traces are computed at once in a process (a shared server's threads queue
# for a slot): a trace at the caps needs ~50 MB while it is built (tests/load/memory_budget.py),
# so 30 students at the caps at once stay ~600 MB lower. Each run takes milliseconds.
MAX_CONCURRENT_RUNS = number("ATTENTION_MAX_CONCURRENT_RUNS", 4)
_slots = threading.BoundedSemaphore(MAX_CONCURRENT_RUNS)


@torch.no_grad()
def run(config: ExplorerConfig) -> AttentionTrace:
    """Compute one trace for `config` (normalised first) on its device; tensors come back on the CPU."""
    with _slots:
        return _run(config)


def _run(config: ExplorerConfig) -> AttentionTrace:
    config = config.normalised()
    tokens = config.tokens
    x = embed(tokens, config.embedding, config.d_in, config.seed, config.matrix)  # (T, d_in)
    module, generator = build_module(config)
    choice = resolve_device(config.device)
    module = module.to(choice.device)
    inputs = module_input(config, x).to(choice.device)
    synchronize(choice.device)
    start = time.perf_counter()
    trace = module.trace(inputs, generator=generator)
    synchronize(choice.device)
    seconds = time.perf_counter() - start
    trace = trace.to("cpu") if choice.device != "cpu" else trace
    return replace(trace, tokens=tokens, config=config, device=choice.device, seconds=seconds)
