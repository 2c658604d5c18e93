"""Inside a model's readings on today's layouts (Llama, Qwen3, Gemma 3), against transformers: the
logit lens equals transformers' hidden states read through the final norm and lm_head at every
stage and position; the logit's parts add up to the logit (Gemma: its post-attention norm frozen
at the run's 1/rms); knocking out a query head equals transformers with that head's columns of
o_proj zeroed; the explanations and maps run on grouped-query heads. Tiny random checkpoints and
the bundled Qwen3-layout Shakespeare model; no network."""

import pytest
import torch

from attention.model import catalog, explain, interventions, lens
from attention.model.checkpoint import load_model
from tests.model.tiny_hf import CONTEXT, VOCAB, tiny

transformers = pytest.importorskip("transformers")

KINDS = ("qwen3", "llama", "gemma3")
HF_CLASSES = {
    "qwen3": "Qwen3ForCausalLM",
    "llama": "LlamaForCausalLM",
    "gemma3": "Gemma3ForCausalLM",
    "shakespeare-qwen3": "Qwen3ForCausalLM",
}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    made = {kind: tmp_path_factory.mktemp(kind) for kind in KINDS}
    for kind, folder in made.items():
        tiny(kind, folder)
    return made | {"shakespeare-qwen3": catalog.SHAKESPEARE_QWEN3_PATH}


def pair(kind, folders):
    """(ours, transformers') for one checkpoint, both float32, and every position's ids."""
    folder = folders[kind]
    ours = load_model(folder)
    hf = (
        getattr(transformers, HF_CLASSES[kind])
        .from_pretrained(folder, attn_implementation="eager", dtype=torch.float32)
        .eval()
    )
    length = min(ours.cfg["context_length"], 40)
    vocab = VOCAB if kind in KINDS else 2000
    ids = torch.randint(0, vocab, (1, length), generator=torch.Generator().manual_seed(5))
    return ours.float(), hf, ids


@pytest.mark.parametrize("kind", [*KINDS, "shakespeare-qwen3"])
def test_the_logit_lens_reads_transformers_hidden_states_through_the_final_norm(kind, folders):
    ours, hf, ids = pair(kind, folders)
    with torch.no_grad():
        out = hf(ids, output_hidden_states=True, use_cache=False)
    stages = lens.stream(ours, ids).stages()  # (S, T, d)
    # transformers' last hidden state is after its final norm; every earlier one is a residual stage
    for stage, theirs in enumerate(out.hidden_states[:-1]):
        torch.testing.assert_close(stages[stage], theirs[0], atol=2e-5, rtol=1e-5, msg=f"stage {stage}")
    read = lens.logit_lens(ours, ids, k=3)
    assert read.stages == ours.layers + 1
    assert torch.equal(read.final_ids, out.logits[0].argmax(-1))  # the last stage is the model's own


@pytest.mark.parametrize("kind", [*KINDS, "shakespeare-qwen3"])
def test_the_logit_parts_add_up_to_the_logit_at_every_position(kind, folders):
    ours, hf, ids = pair(kind, folders)
    logits = hf(ids).logits[0].detach()  # (T, V)
    for position in range(ids.shape[1]):
        parts = lens.logit_parts(ours, ids, position)
        assert parts.logit == pytest.approx(logits[position].max().item(), abs=2e-4)
        assert parts.total == pytest.approx(parts.logit, abs=2e-4), position
        assert parts.heads.shape == (ours.layers, ours.heads)
        assert parts.norm_shift == 0.0  # RMSNorm has no shift


@pytest.mark.parametrize("kind", KINDS)
def test_knocking_out_a_query_head_equals_transformers_with_its_o_proj_columns_zeroed(kind, folders):
    ours, hf, ids = pair(kind, folders)
    head_dim = ours.trf_blocks[0].att.head_dim
    for layer, head in ((0, 0), (ours.layers - 1, ours.heads - 1), (1, 2)):
        trace = interventions.run_with(ours, ids, interventions.Ablation(((layer, head),)))
        knocked = getattr(transformers, HF_CLASSES[kind]).from_pretrained(
            folders[kind], attn_implementation="eager", dtype=torch.float32
        )
        with torch.no_grad():
            o_proj = knocked.model.layers[layer].self_attn.o_proj.weight
            o_proj[:, head * head_dim : (head + 1) * head_dim] = 0.0
            theirs = knocked(ids).logits
        torch.testing.assert_close(trace.logits, theirs, atol=2e-5, rtol=0)
        assert not torch.allclose(trace.logits, hf(ids).logits.detach(), atol=1e-4)  # it did something


@pytest.mark.parametrize("kind", KINDS)
def test_every_explanation_and_map_runs_on_grouped_query_heads(kind, folders):
    ours, hf, ids = pair(kind, folders)
    ids = ids[:, :CONTEXT]
    found = explain.explain(ours, ids)
    logprobs = torch.log_softmax(hf(ids).logits[0, -1].detach(), -1)
    assert found.target == int(logprobs.argmax())
    assert found.logprob == pytest.approx(logprobs.max().item(), abs=1e-4)
    for method, scores in found.scores.items():
        assert scores is None or scores.shape == (ids.shape[1],), method
    grid = interventions.ablation_map(ours, ids)
    assert grid.values.shape == (ours.layers, ours.heads)
    corrupted = ids.flip(1)
    patched = interventions.patching_map(ours, ids, corrupted)
    assert patched.values.shape == (ours.layers, ours.heads)
