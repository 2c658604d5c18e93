"""The logit lens equals Hugging Face's hidden states read through ln_f and lm_head, at every
position and stage; direct logit attribution adds up to the logit and each head's part equals
TransformerLens's apply_ln_to_stack; on both shipped models and a random GPT-2 config."""

import copy

import pytest
import torch

from attention.errors import ConfigError
from attention.model import catalog
from attention.model.checkpoint import load_gpt2
from attention.model.lens import logit_lens, logit_parts
from tests.model.test_interventions import repeated_phrase, transformer_lens_bridge

transformers = pytest.importorskip("transformers")  # requirements-dev.txt: a test-only dependency

RANDOM = dict(vocab_size=101, n_positions=32, n_embd=48, n_layer=3, n_head=4)


@pytest.fixture(scope="module")
def random_folder(tmp_path_factory):
    """A random GPT-2 config saved in its layout; its norms' scales and shifts drawn at random
    too (freshly made they are 1 and 0, which would hide a missing scale or shift)."""
    torch.manual_seed(3)
    cfg = transformers.GPT2Config(attn_implementation="eager", bos_token_id=None, eos_token_id=None, **RANDOM)
    hf = transformers.GPT2LMHeadModel(cfg).eval()
    with torch.no_grad():
        for module in hf.modules():
            if isinstance(module, torch.nn.LayerNorm):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.3)
    folder = tmp_path_factory.mktemp("random-gpt2")
    hf.save_pretrained(folder, safe_serialization=True)
    return folder


def folder_of(name, request):
    return {"bundled": catalog.BUNDLED_PATH, "shakespeare": catalog.SHAKESPEARE_PATH}.get(name) or (
        request.getfixturevalue("random_folder")
    )


def sample_ids(name: str, vocab: int) -> torch.Tensor:
    if name == "bundled":
        return torch.tensor([repeated_phrase()[0]])  # (1, 33)
    return torch.randint(0, vocab, (1, 30), generator=torch.Generator().manual_seed(7))


MODELS = ["bundled", "shakespeare", "random"]


@pytest.mark.parametrize("name", MODELS)
def test_the_logit_lens_equals_hugging_faces_hidden_states_through_ln_f_and_lm_head(name, request):
    folder = folder_of(name, request)
    ours = load_gpt2(folder)
    hf = transformers.GPT2LMHeadModel.from_pretrained(
        folder, attn_implementation="eager", dtype=torch.float32
    )
    ids = sample_ids(name, ours.cfg["vocab_size"])
    with torch.no_grad():
        hidden = hf.eval()(ids, output_hidden_states=True).hidden_states  # S tensors (1, T, emb)
        # HF's last hidden state has ln_f applied already; the ones before it do not
        read = [hf.transformer.ln_f(h) for h in hidden[:-1]] + [hidden[-1]]
        theirs = torch.stack([torch.log_softmax(hf.lm_head(h[0]), -1) for h in read])  # (S, T, vocab)
    lens = logit_lens(ours, ids, k=4)
    assert lens.stages == ours.layers + 1 == len(hidden)
    final = theirs[-1].argmax(-1)  # (T,)
    assert torch.equal(lens.final_ids, final)
    expected = theirs.gather(-1, final.expand(lens.stages, -1)[..., None])[..., 0]  # (S, T)
    torch.testing.assert_close(lens.final_logprobs, expected, atol=1e-4, rtol=0)
    # each stage's top tokens: theirs' log-probabilities of the ids we name are their top 4
    picked = theirs.gather(-1, lens.top_ids)  # (S, T, 4)
    torch.testing.assert_close(picked, theirs.topk(4, -1).values, atol=1e-4, rtol=0)
    torch.testing.assert_close(lens.top_probs.log(), picked, atol=1e-4, rtol=0)
    agrees = theirs.argmax(-1) == final  # (S, T)
    for t in range(ids.shape[1]):
        later = [s for s in range(lens.stages) if agrees[s:, t].all()]
        assert lens.commit[t] == later[0], t


def test_commit_is_the_first_stage_from_which_the_top_1_stays():
    model = load_gpt2(catalog.BUNDLED_PATH)
    lens = logit_lens(model, torch.tensor(repeated_phrase()[0]))
    assert lens.commit.max() <= model.layers
    # the copy model decides in its last block (its induction heads): nothing commits at stage 0
    assert (lens.commit >= 1).all() and (lens.commit == model.layers).any()


@pytest.mark.parametrize("name", MODELS)
def test_the_logit_parts_add_up_to_the_logit(name, request):
    model = load_gpt2(folder_of(name, request))
    ids = sample_ids(name, model.cfg["vocab_size"])
    logits = model(ids)[0]  # (T, vocab)
    for position in (0, 5, 17, -1):
        for token in (None, 3, int(logits[position].argmin())):
            parts = logit_parts(model, ids, position, token)
            want = int(logits[position].argmax()) if token is None else token
            assert parts.token == want and parts.position == position % ids.shape[1]
            assert parts.logit == pytest.approx(logits[position, want].item(), abs=1e-4)
            assert parts.total == pytest.approx(parts.logit, abs=1e-4), (position, token)
            assert parts.heads.shape == (model.layers, model.heads)
            assert parts.mlps.shape == parts.attention_bias.shape == (model.layers,)


@pytest.mark.slow  # TransformerLens's import and three bridges: seconds
@pytest.mark.parametrize("name", MODELS)
def test_each_heads_part_equals_transformer_lens_apply_ln_to_stack(name, request, monkeypatch):
    """TransformerLens's bridge does not fold the norms into the weights: its apply_ln centres
    and divides by the final residual's scale, so its unembedding is final_norm's scale times
    out_head's row (and the shift, a constant, is left out of every part)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder = folder_of(name, request)
    ours, bridge = load_gpt2(folder), transformer_lens_bridge(folder)
    ids = sample_ids(name, ours.cfg["vocab_size"])
    with torch.no_grad():
        _, cache = bridge.run_with_cache(ids)
        heads = cache.stack_head_results(layer=-1, pos_slice=None, apply_ln=True)  # (L·H, 1, T, emb)
        pieces, labels = cache.decompose_resid(layer=-1, pos_slice=None, return_labels=True, apply_ln=True)
    for position in (3, 11, ids.shape[1] - 1):
        parts = logit_parts(ours, ids, position)
        column = (ours.final_norm.scale * ours.out_head.weight[parts.token]).detach()  # (emb,)
        theirs = (heads[:, 0, position] @ column).view(ours.layers, ours.heads)
        torch.testing.assert_close(parts.heads, theirs, atol=1e-4, rtol=0)
        read = dict(zip(labels, (pieces[:, 0, position] @ column).tolist(), strict=True))
        assert parts.embeddings == pytest.approx(read["embed"] + read["pos_embed"], abs=1e-4)
        for layer in range(ours.layers):
            assert parts.mlps[layer].item() == pytest.approx(read[f"{layer}_mlp_out"], abs=1e-4)
            attention = parts.heads[layer].sum() + parts.attention_bias[layer]
            assert attention.item() == pytest.approx(read[f"{layer}_attn_out"], abs=1e-4)


def test_bad_input_is_a_config_error():
    model = load_gpt2(catalog.BUNDLED_PATH)
    ids = torch.tensor(repeated_phrase()[0][:6])
    cases = [
        (lambda: logit_lens(model, ids, k=0), "top=0"),
        (lambda: logit_lens(model, torch.zeros(0, dtype=torch.long)), "empty"),
        (lambda: logit_parts(model, ids, position=6), r"position=6 .*0\.\.5"),
        (lambda: logit_parts(model, ids, position=-7), "position=-7"),
        (lambda: logit_parts(model, ids, token=50257), "outside the vocabulary"),
    ]
    for call, words in cases:
        with pytest.raises(ConfigError, match=words):
            call()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_the_lens_the_logit_parts_and_every_explanation_agree_on_cuda():
    """The same numbers on a GPU as on the CPU (the Shakespeare model, its example sentence): the
    lens, the logit's parts and each method's scores (flow solved on the CPU either way)."""
    from attention.model.explain import explain
    from attention.model.sentence import encode, example

    model, info = catalog.load("shakespeare")
    ids = torch.tensor([encode(info, example(info), model.cfg["context_length"])[0]])
    cpu = logit_lens(model, ids), logit_parts(model, ids), explain(model, ids)
    gpu_model, on_gpu = copy.deepcopy(model).to("cuda"), ids.cuda()  # the catalog's own stays on the CPU
    gpu = logit_lens(gpu_model, on_gpu), logit_parts(gpu_model, on_gpu), explain(gpu_model, on_gpu)
    assert torch.equal(cpu[0].final_ids, gpu[0].final_ids) and torch.equal(cpu[0].commit, gpu[0].commit)
    torch.testing.assert_close(cpu[0].final_logprobs, gpu[0].final_logprobs, atol=1e-3, rtol=1e-4)
    assert abs(cpu[1].logit - gpu[1].logit) < 1e-3 and abs(gpu[1].total - gpu[1].logit) < 1e-3
    torch.testing.assert_close(cpu[1].heads, gpu[1].heads, atol=1e-3, rtol=1e-4)
    for method, scores in cpu[2].scores.items():
        if scores is not None:
            assert abs(gpu[2].scores[method] - scores).max() < 1e-2, method
