"""Inside a model's caches: each model loaded once per server process and shared read-only by
every session (30 students must not load 30 copies); its sentence views, layer traces, head
roles, knockouts, importance maps, logit lenses and explanations cached by plain values (source,
token ids), their arrays made read-only as they enter (attention.readonly.freeze: every session
reads the same ones)."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from attention.chapter3.trace import AttentionTrace
from attention.i18n import N_, tr
from attention.model import catalog, lab, sentence, today
from attention.model.attribution import attribution_map, attribution_patching_map
from attention.model.catalog import ModelInfo
from attention.model.explain import Explanation, explain
from attention.model.gpt import GPTModel
from attention.model.interventions import HeadMap, Metric, ablation_map, patching_map
from attention.model.lens import Lens, LogitParts, logit_lens, logit_parts
from attention.model.roles import head_roles, text_roles
from attention.model.sentence import SentenceView
from attention.readonly import freeze
from attention.slots import MODEL_LOADS, SWEEPS
from ui.slots import wait_for

HEAVY_PARAMETERS = 20_000_000  # an exact map of a larger model waits in the heavy-work line
_downloading = threading.Lock()  # one download at a time: bandwidth; a long one never blocks a load


@dataclass(frozen=True)
class _Loaded:  # a tuple cannot be weakly referenced
    model: GPTModel
    info: ModelInfo


# The models in memory, by source: opening one of them needs no slot. Weak, so a model the cache
# has let go of (a fourth model picked) is gone from here too, and loading it again waits in line.
_loaded: weakref.WeakValueDictionary[str, _Loaded] = weakref.WeakValueDictionary()


OWN_RUNS = "_own_runs"  # the run sources this session trained (ui/train/induction.keep), newest first


def own_runs() -> list[str]:
    """This session's runs: the only ones its Model list shows (catalog.choices)."""
    return st.session_state.get(OWN_RUNS, [])


@st.cache_resource(max_entries=3, show_spinner=False)
def _model(source: str) -> _Loaded:
    model, info = catalog.load(source)  # a hub model is on disk by now (see model())
    model.requires_grad_(False)  # read-only: nothing here trains it, and no session may change it
    return _Loaded(model, info)


def model(source: str) -> tuple[GPTModel, ModelInfo]:
    """The model for `source`: downloaded first if it is a hub model not yet on disk (a progress
    bar; a clear ConfigError without a network), then loaded once per process, in line for a
    model-load slot (attention.slots.MODEL_LOADS) with the line's length shown."""
    catalog.check_source(source)  # before any download
    if catalog.needs_download(source):
        bar = st.progress(0.0, text=tr("Downloading {source}…", source=source))

        def progress(done: int, total: int) -> None:
            if total:
                text = tr(
                    "Downloading {source}: {done:,.0f} of {total:,.0f} MB",
                    source=source,
                    done=done / 2**20,
                    total=total / 2**20,
                )
                bar.progress(min(1.0, done / total), text=text)

        try:
            with _downloading:
                catalog.download(source, progress=progress)
        finally:
            bar.empty()
    if (loaded := _loaded.get(source)) is None:
        ticket, _ = wait_for(MODEL_LOADS, st.session_state.setdefault("_held_model", {}), "model load")
        try:
            with st.spinner(tr("Loading {model}…", model=catalog.choices(own_runs()).get(source, source))):
                loaded = _loaded[source] = _model(source)
        finally:
            ticket.release()
    return loaded.model, loaded.info


# The caches below are keyed by plain values (source, token ids); the model itself is passed in
# unhashed (`_gpt`), the one the page took from model(), so a model the cache let go of is
# loaded again through the line, never from here.


@st.cache_resource(max_entries=8, ttl=3600, show_spinner=False)
def _view(source: str, ids: tuple[int, ...], tokens: tuple[str, ...], _gpt: GPTModel) -> SentenceView:
    return freeze(sentence.sentence_view(_gpt, list(ids), tokens))


def view(source: str, gpt: GPTModel, ids: list[int], tokens: tuple[str, ...]) -> SentenceView:
    """Every head's weights on the sentence. A model larger than the bundled ones (Qwen3-0.6B: a
    trace holds ~0.3 GB while it runs) reads a new sentence in the heavy-work line, so 30 students'
    first sentences take their turns instead of 30 traces' memory at once."""
    args = (source, tuple(ids), tokens)
    if _large(gpt):
        if (done := _made_before(args)) is not None:
            return done
        return _in_line("view", tr("Reading your sentence…"), lambda: _made_once(args, _view(*args, gpt)))
    return _view(*args, gpt)


@st.cache_resource(max_entries=8, ttl=3600, show_spinner=False)  # (L, H) and (L, T) arrays: small
def _today(source: str, ids: tuple[int, ...], start: int, _gpt: GPTModel) -> today.Today:
    return freeze(today.measure(_gpt, list(ids), start))


def today_of(source: str, gpt: GPTModel, info: ModelInfo, ids: list[int]) -> today.Today:
    """Today's attention on the sentence: sinks, shared keys, the KV cache, distances (three passes:
    a large model's wait in the heavy-work line, as its sentence view does)."""
    args = (source, tuple(ids), info.start_token)
    if _large(gpt):
        if (done := _made_before(("today", *args))) is not None:
            return done
        work = lambda: _made_once(("today", *args), _today(*args, gpt))  # noqa: E731
        return _in_line("today", tr("Measuring your sentence…"), work)
    return _today(*args, gpt)


@st.cache_resource(max_entries=16, ttl=3600, show_spinner=False)
def _layer(source: str, ids: tuple[int, ...], index: int, _gpt: GPTModel) -> AttentionTrace:
    return sentence.trace_of(_gpt, list(ids)).layers[index]


def layer(source: str, gpt: GPTModel, ids: list[int], index: int) -> AttentionTrace:
    """One block's full trace (every step, queries, keys, values) for the head detail."""
    return _layer(source, tuple(ids), index, gpt)


PROBES = {"random": N_("random tokens"), "text": N_("lines of text")}  # what a role is measured on


def probes_for(info: ModelInfo) -> str:
    """A language model's roles on text; any other model's on random tokens (its own)."""
    return "text" if info.reads_language else "random"


@st.cache_resource(max_entries=4, show_spinner=False)
def _roles(source: str, _gpt: GPTModel, _info: ModelInfo, probes: str) -> dict[str, np.ndarray]:
    if probes == "text" and not _info.symbols:
        return freeze(text_roles(_gpt, sentence.natural_probes(_info), _info.start_token))
    return freeze(head_roles(_gpt, _info.probe_vocab, _info.start_token))


def roles(source: str, gpt: GPTModel, info: ModelInfo, probes: str = "random") -> dict[str, np.ndarray]:
    """Every head's role scores (roles.py), on random-token probes or natural text
    (sentence.NATURAL_LINES, for a model with GPT-2's vocabulary)."""
    with st.spinner(tr("Measuring every head's role on probe sequences…")):
        return _roles(source, gpt, info, probes)


@st.cache_resource(max_entries=4, ttl=3600, show_spinner=False)  # two (L, H, T, T) grids each: ≤ 19 MB
def _knockout(source, ids, tokens, heads, mode, _gpt, _info) -> lab.Knockout:
    return freeze(lab.knockout(_gpt, _info, ids, tokens, heads, mode))


def knockout(source, gpt, info, ids, tokens, heads, mode) -> lab.Knockout:
    """The sentence before and after `heads` are knocked out (lab.knockout), cached by value."""
    return _knockout(source, tuple(ids), tokens, tuple(heads), mode, gpt, info)


MAPS = {
    ("ablation", "exact"): ablation_map,
    ("ablation", "attribution"): attribution_map,
    ("patching", "exact"): patching_map,
    ("patching", "attribution"): attribution_patching_map,
}


@st.cache_resource(max_entries=8, ttl=3600, show_spinner=False)
def _importance(source, ids, corrupted, kind, method, mode, _gpt) -> HeadMap:
    metric = Metric(positions=lab.repeat_positions(ids))  # the repeated tokens; none: every token
    if kind == "ablation":
        return freeze(MAPS[kind, method](_gpt, list(ids), metric, mode))
    return freeze(MAPS[kind, method](_gpt, list(ids), list(corrupted), metric))


def importance(source, gpt, ids, corrupted, kind, method, mode) -> HeadMap:
    """An (L, H) head-importance map, cached by value. An exact map of a model larger than the
    bundled ones runs ~100 forwards (benchmarks/importance.py): it waits in the heavy-work line
    (attention.slots.SWEEPS, shared with the scaling sweeps) with the line's length shown."""
    args = (source, tuple(ids), tuple(corrupted), kind, method, mode)
    if method == "exact" and _large(gpt):
        if (done := _made_before(args)) is not None:
            return done
        return _in_line("map", tr("Running every head…"), lambda: _made_once(args, _importance(*args, gpt)))
    return _importance(*args, gpt)


# What a heavy computation made, held weakly: a page asking again gets the very result while
# anything (its cache, a page) still holds it, instead of waiting in line behind a scaling sweep.
# Once nothing holds it, the reference is dead and the work waits in line again: knowing only
# that it was made once let an evicted result be recomputed outside the line.
_made: OrderedDict[tuple, weakref.ref] = OrderedDict()
_made_lock = threading.Lock()
MADE = 64  # references kept (dead ones dropped first)


def _made_before(args: tuple):
    with _made_lock:
        found = _made.get(args)
    return found() if found is not None else None


def _made_once(args: tuple, result):
    with _made_lock:
        _made[args] = weakref.ref(result)
        if len(_made) > MADE:
            for key in [k for k, ref in _made.items() if ref() is None]:
                del _made[key]
        while len(_made) > MADE:
            _made.popitem(last=False)
    return result


def _large(gpt: GPTModel) -> bool:
    """Larger than the bundled models: its heavy work waits in line."""
    return sum(p.numel() for p in gpt.parameters()) > HEAVY_PARAMETERS


def _in_line(name: str, words: str, compute):
    """compute() in the heavy-work line (attention.slots.SWEEPS, shared with the scaling sweeps),
    the line's length shown; its place held under `name` for this page."""
    held = st.session_state.setdefault("_held_model", {}).setdefault(name, {})  # goes with the page
    ticket, _ = wait_for(SWEEPS, held, "heavy computation")
    try:
        with st.spinner(words):
            return compute()
    finally:
        ticket.release()


# --- Where it decided and Which explanation? (attention.model.lens, attention.model.explain) -------


@st.cache_resource(max_entries=8, ttl=3600, show_spinner=False)  # (S, T, 5) each: small
def _lens(source: str, ids: tuple[int, ...], _gpt: GPTModel) -> Lens:
    return logit_lens(_gpt, torch.tensor([ids]))


def lens(source: str, gpt: GPTModel, ids: list[int]) -> Lens:
    """The logit lens on the sentence (every stage's top tokens, when each prediction commits)."""
    return _lens(source, tuple(ids), gpt)


@st.cache_resource(max_entries=16, ttl=3600, show_spinner=False)
def _parts(source: str, ids: tuple[int, ...], position: int, _gpt: GPTModel) -> LogitParts:
    return logit_parts(_gpt, torch.tensor([ids]), position)


def parts(source: str, gpt: GPTModel, ids: list[int], position: int) -> LogitParts:
    """The final top-1 logit at `position`, split into its direct contributions."""
    return _parts(source, tuple(ids), position, gpt)


@st.cache_resource(max_entries=16, ttl=3600, show_spinner=False)
def _explanation(source: str, ids: tuple[int, ...], position: int, baseline: str, _gpt) -> Explanation:
    return freeze(explain(_gpt, torch.tensor([ids]), position, baseline))


def explanation(source: str, gpt: GPTModel, ids: list[int], position: int, baseline: str) -> Explanation:
    """Every attribution method and the ablation for the prediction after `position`. A model
    larger than the bundled ones runs T + 1 rows forward (explain.ABLATION_TOKENS tokens a pass)
    and a backward pass: it waits in the heavy-work line, as an exact head map does."""
    args = (source, tuple(ids), position, baseline)
    if _large(gpt):
        if (done := _made_before(args)) is not None:
            return done
        words = tr("Scoring every token by every method…")
        return _in_line("explain", words, lambda: _made_once(args, _explanation(*args, gpt)))
    return _explanation(*args, gpt)
