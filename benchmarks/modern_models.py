"""Today's small models on the CPU, how fast and how big (issue 42): Qwen3-0.6B's and SmolLM2-135M's
shapes with random weights (no download).

    .venv/bin/python -m benchmarks.modern_models [--quick] [--tokens 32] [--rounds 5] [--students 30]

1. Trace speed: Qwen3-0.6B's exact shape (qwen3.QWEN_CONFIG_06_B: 28 blocks, 16 query heads over 8
   key/value heads of 128, d 1,024, vocabulary 151,936, tied embeddings) in float32, built as our
   Qwen3Model and as transformers' Qwen3ForCausalLM (eager attention) with the same weights:
   hf_layout.save_hf into a temporary folder (tmpfs where there is one), from_pretrained, the folder
   deleted. The cheapest way measured (once, 2026-11-28, this machine, busy): 3.1 s (save_hf 2.7 s,
   from_pretrained 0.4 s), against 21 s for transformers' own random init (17 s) and
   load_state_dict(qwen3.state_of(ours)); save_pretrained + checkpoint.load_model refuses the
   float32 model (2,354 MB, over ATTENTION_MAX_MODEL_MB's default 2,048).
   One Qwen3Model.trace (every block's intermediates kept) against one forward with
   output_attentions=True, use_cache=False, on --tokens tokens, interleaved rounds (median), the
   same thread count (1). Target: trace <= 1.2 x transformers. The logits are compared once.
2. Memory: each shape in a fresh process (torch and Streamlit imported, as in the server), the
   model built in bfloat16 in our classes (the tensors checkpoint.load_model(folder,
   dtype=torch.bfloat16) makes of the hub's bf16 files), then --students students each reading a
   sentence of their own, 128 random tokens. Per sentence it keeps what the Model page's cache
   keeps (ui/model/caches.py `_view`: sentence.sentence_view, frozen): a SentenceView with every
   head's weights (L, H, T, T) float32 as numpy, the last position's logits and the (T,) losses;
   the trace itself is dropped. As the app holds them: the cache keeps the last 8 (max_entries=8)
   and a model this large reads a new sentence in the heavy-work line (ui/model/caches.view: one
   trace in flight at a time), so the students' 30 sentences pass through a cache of 8, one at a
   time: the peak of that is the verdict. Then, worse than the app, all 30 held at once (a line of
   its own). Not emulated: the head detail's cache (up to 16 one-layer traces), the other pages'
   caches. sentence_view casts a bf16 trace to float32 (numpy has no bfloat16). Peak RSS (VmHWM)
   against Qwen3-0.6B 2.5 GB, SmolLM2-135M 1.2 GB.
3. --quick: tiny shapes of both layouts, 3 students, 2 rounds: a smoke test of every line.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from attention.bench import measure
from attention.model import sentence
from attention.model.hf_layout import save_hf
from attention.model.llama3 import Llama3Model
from attention.model.qwen3 import QWEN_CONFIG_06_B, Qwen3Model
from attention.model.sentence import SentenceView
from attention.readonly import freeze
from benchmarks.gpt_trace import interleaved, print_medians

GB = 1e9  # 10^9 bytes: the targets (2.5 GB, 1.2 GB) are written so
# SmolLM2-135M (HuggingFaceTB/SmolLM2-135M's config.json) in the book's keys: Llama's layout
SMOLLM2_CONFIG_135M = {
    "vocab_size": 49_152,
    "context_length": 8192,
    "emb_dim": 576,
    "n_heads": 9,
    "n_layers": 30,
    "hidden_dim": 1536,
    "head_dim": 64,
    "qk_norm": False,
    "n_kv_groups": 3,
    "rope_base": 100_000.0,
    "norm_eps": 1e-5,
    "tie_embeddings": True,
}
TINY = {"vocab_size": 512, "context_length": 256, "emb_dim": 64, "n_layers": 2, "hidden_dim": 96}
SHAPES = {  # name -> (class, config, peak RSS target in GB)
    "Qwen3-0.6B": (Qwen3Model, QWEN_CONFIG_06_B, 2.5),
    "SmolLM2-135M": (Llama3Model, SMOLLM2_CONFIG_135M, 1.2),
}
QUICK_SHAPES = {
    "tiny Qwen3": (
        Qwen3Model,
        QWEN_CONFIG_06_B | TINY | {"n_heads": 4, "head_dim": 16, "n_kv_groups": 2},
        2.5,
    ),
    "tiny SmolLM2": (Llama3Model, SMOLLM2_CONFIG_135M | TINY | {"n_heads": 3, "head_dim": 16}, 1.2),
}
SENTENCE_TOKENS = 128  # sentence.MAX_TOKENS: the longest sentence the page traces
CACHED_VIEWS = 8  # ui/model/caches.py: _view's max_entries


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


# --- 1. Trace speed -------------------------------------------------------------------------------


SCRATCH = "/dev/shm" if Path("/dev/shm").is_dir() else None  # tmpfs: the 2.4 GB file never hits a disk


def twins(cfg: dict) -> tuple[Qwen3Model, object, float]:
    """Our Qwen3Model of `cfg` (float32, random weights) and transformers' Qwen3ForCausalLM with
    the same weights (eager attention), through a temporary folder in Hugging Face's layout; and
    the seconds that took."""
    import transformers

    transformers.utils.logging.disable_progress_bar()
    torch.manual_seed(0)
    ours = Qwen3Model(cfg).eval()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=SCRATCH) as folder:
        save_hf(ours, folder)
        theirs = transformers.Qwen3ForCausalLM.from_pretrained(
            folder, attn_implementation="eager", dtype=torch.float32
        ).eval()
    return ours, theirs, time.perf_counter() - start


def trace_speed(name: str, cfg: dict, tokens: int, rounds: int) -> None:
    import transformers

    ours, theirs, seconds = twins(cfg)
    ids = torch.randint(0, cfg["vocab_size"], (1, tokens), generator=torch.Generator().manual_seed(1))
    reference = "Qwen3ForCausalLM(output_attentions)"
    calls = {
        "Qwen3Model.trace (every intermediate)": lambda: ours.trace(ids),
        "Qwen3Model.forward": lambda: ours(ids),
        reference: lambda: theirs(ids, output_attentions=True, use_cache=False),
    }
    times = interleaved(calls, rounds)
    with torch.no_grad():
        logits = ours.trace(ids).logits
        diff = (logits - theirs(ids, use_cache=False).logits).abs().max().item()
    print(
        f"== 1. trace speed: {name}'s shape, random weights, float32, T={tokens}, B=1, CPU "
        f"({torch.get_num_threads()} thread), torch {torch.__version__}, transformers "
        f"{transformers.__version__}; median of {rounds} interleaved rounds"
    )
    print(f"   (the same weights into transformers' model, save_hf + from_pretrained: {seconds:.1f} s)")
    print_medians(times, reference, width=40)
    print(f"max |logits difference| {diff:.2e} (the logits reach {logits.abs().max().item():.1f})")


# --- 2. Memory: in a process of its own ----------------------------------------------------------


def page_view(model: Qwen3Model, ids: list[int]) -> SentenceView:
    """What the Model page's sentence cache keeps for one sentence: sentence.sentence_view, frozen
    as ui/model/caches.py freezes it."""
    return freeze(sentence.sentence_view(model, ids, ()))


def rss() -> int:
    return measure.proc_status_kib("VmRSS") * 1024


def students_memory(shape: str, students: int, quick: bool) -> dict:
    """In this (fresh) process: RSS after the imports, after the model, after CACHED_VIEWS and after
    `students` sentences' views, the peak over all of it, and one more trace's transient peak."""
    import streamlit  # noqa: F401  (its memory belongs to a server process's baseline)

    torch.set_num_threads(1)
    cls, cfg, _ = (QUICK_SHAPES if quick else SHAPES)[shape]
    out = {"imports": rss()}
    torch.manual_seed(0)
    model = cls(cfg | {"dtype": torch.bfloat16}).eval().requires_grad_(False)
    out["model"] = rss()
    tokens = min(SENTENCE_TOKENS, cfg["context_length"])

    def draw(student: int) -> list[int]:  # a sentence of its own for each student
        return torch.randint(
            0, cfg["vocab_size"], (tokens,), generator=torch.Generator().manual_seed(student)
        ).tolist()

    cache = collections.deque(maxlen=CACHED_VIEWS)  # the page cache: the oldest view goes first
    for student in range(students):  # one at a time: the heavy-work line
        cache.append(page_view(model, draw(student)))
    out["cached"] = rss()
    out["peak"] = measure.proc_status_kib("VmHWM") * 1024  # as the app holds them: the verdict
    views = [*cache, *(page_view(model, draw(student)) for student in range(students - len(cache)))]
    out["held"] = rss()
    out["held_peak"] = measure.proc_status_kib("VmHWM") * 1024
    out["view_bytes"] = views[0].weights.nbytes + views[0].next_logits.nbytes + views[0].losses.nbytes
    out["weights_shape"] = list(views[0].weights.shape)
    if measure.prepare_cpu_memory_measurement():  # resets the high-water mark: after the peak
        out["in_flight"] = measure.peak_bytes(lambda: page_view(model, draw(students)), "cpu")
    return out


def start_memory(shape: str, students: int, quick: bool) -> subprocess.Popen:
    """students_memory(shape) started in a fresh process (memory_report reads what it found)."""
    command = [
        sys.executable,
        "-m",
        "benchmarks.modern_models",
        "--child",
        shape,
        "--students",
        f"{students}",
    ]
    return subprocess.Popen([*command, *["--quick"] * quick], stdout=subprocess.PIPE, text=True)


def memory_report(child: subprocess.Popen, shape: str, students: int, quick: bool) -> None:
    """The child's figures, printed against the shape's target."""
    out, _ = child.communicate()
    if child.returncode:
        raise SystemExit(f"the memory measurement of {shape} failed (exit {child.returncode})")
    got = json.loads(out.strip().splitlines()[-1])
    target = (QUICK_SHAPES if quick else SHAPES)[shape][2]
    words = f"{students} students' sentences of {SENTENCE_TOKENS} tokens"
    print(f"== 2. memory: {shape}'s shape in bfloat16, {words}")
    print(
        f"   one sentence's view: weights {tuple(got['weights_shape'])} float32, logits, losses: "
        f"{got['view_bytes'] / 2**20:.1f} MiB"
    )
    rows = [
        ("RSS after imports (torch, Streamlit)", got["imports"]),
        ("RSS after the model", got["model"]),
        (f"RSS after {students} views through the page cache of {CACHED_VIEWS}", got["cached"]),
        (f"RSS with all {students} views held (worse than the app)", got["held"]),
        ("one trace in flight, above that", got.get("in_flight")),
    ]
    for label, value in rows:
        if value is not None:
            print(f"   {label:46} {value / GB:6.2f} GB")
    verdict = "within" if got["peak"] <= target * GB else "OVER"
    print(
        f"peak RSS as the app holds them {got['peak'] / GB:.2f} GB against the {target} GB target ({verdict})"
    )
    print(f"peak RSS with all {students} held {got['held_peak'] / GB:.2f} GB")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.modern_models",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="tiny shapes, 3 students, 2 rounds")
    parser.add_argument("--tokens", type=int, default=32, help="tokens a timed trace reads")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--child", help=argparse.SUPPRESS)  # the memory measurement's own process
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(students_memory(args.child, args.students, args.quick)))
        return
    torch.set_num_threads(1)
    shapes = QUICK_SHAPES if args.quick else SHAPES
    students, rounds = (3, 2) if args.quick else (args.students, args.rounds)
    print(f"# {load_line()}; torch threads {torch.get_num_threads()}")
    # --quick starts its children first, beside the timing (a smoke test's figures are no
    # measurement); the full run times alone, then measures each shape after the other
    early = {shape: start_memory(shape, students, True) for shape in shapes} if args.quick else {}
    name = next(iter(shapes))
    trace_speed(name, shapes[name][1], args.tokens, rounds)
    gc.collect()  # both float32 models gone before the memory children start
    for shape in shapes:
        child = early.get(shape) or start_memory(shape, students, args.quick)
        memory_report(child, shape, students, args.quick)
    print(f"# {load_line()} at the end")


if __name__ == "__main__":
    main()
