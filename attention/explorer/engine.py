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

import time
from dataclasses import replace

import torch
import torch.nn as nn

from attention import slots
from attention.chapter3 import modules
from attention.chapter3.embeddings import embed
from attention.chapter3.trace import AttentionTrace
from attention.devices import resolve_device, synchronize
from attention.explorer.config import ExplorerConfig


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


@torch.no_grad()
def run(config: ExplorerConfig) -> AttentionTrace:
    """Compute one trace for `config` (normalised first) on its device; tensors come back on the CPU."""
    with slots.TRACES:  # a shared server builds a few traces at once, the rest wait
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
    trace = config.spec.trace(module, config, inputs, generator=generator)  # mask, RoPE: the variant's
    synchronize(choice.device)
    seconds = time.perf_counter() - start
    trace = trace.to("cpu") if choice.device != "cpu" else trace
    return replace(trace, tokens=tokens, config=config, device=choice.device, seconds=seconds)
