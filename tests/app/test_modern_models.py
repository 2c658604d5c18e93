"""Inside a model on today's layouts under AppTest: every view renders on the bundled Qwen3-layout
Shakespeare model and on tiny random Llama, Qwen3 and Gemma 3 checkpoints (their own tokenizer.json),
All heads groups the query heads by the key/value head they share, and the caption says how the
model computes attention."""

import pytest

from attention.model import catalog
from tests.app.conftest import SHOW, answer, asked, figures, session, skip
from tests.model.tiny_hf import tiny, word_tokenizer
from ui.model.url import VIEWS

pytest.importorskip("transformers")

TEXT = "the cat sat on a mat and the cat sat on a mat and"  # 13 words: the tiny models' context is 16


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    made = {}
    for kind in ("llama", "qwen3", "gemma3"):
        made[kind] = tmp_path_factory.mktemp(kind)
        tiny(kind, made[kind])
        word_tokenizer(made[kind])
    return made


def page(model: str, view: str, **params):
    at = session(180, model=model, view=view, **params)
    at.switch_page("pages/model.py")
    return at.run()


def past_the_questions(at):
    """Today's attention past its three predict-first questions, without predicting."""
    for key in ("m_today_sink", "m_today_groups", "m_today_window"):
        if not asked(at, key):
            continue  # answered already, or no question (nothing to compare on this model)
        at = skip(at, key)
        assert not at.exception
    return at


def said(at) -> str:
    return "\n".join(e.value for e in [*at.caption, *at.markdown, *at.info, *at.warning])


@pytest.mark.parametrize("view", list(VIEWS))
def test_every_view_renders_on_the_bundled_qwen3_layout_model(view):
    at = page(catalog.SHAKESPEARE_QWEN3, view)
    assert not at.exception and not at.error, view
    assert at.selectbox(key="m_source").value == catalog.SHAKESPEARE_QWEN3
    assert "8 query heads share 2 key/value heads" in said(at)
    assert "Layers 1, 2 see only the last 32 tokens" in said(at)
    if view == "lab":  # a knockout draws once a head is picked
        at = at.multiselect(key="m_ko").set_value(["1.2"]).run()
        assert not at.exception and not at.error
        assert (
            "Heads 0–3 read one key/value head, so patching that key/value head would change all 4"
            in said(at)
        )
    if view == "explain":  # past both predict-first questions (none on a tie: "No question this time")
        for key in ("m_predict_attention", "m_predict_removal"):
            if asked(at, key):
                at = skip(at, key)
        assert not at.exception and not at.error
    if view == "today":
        at = past_the_questions(at)
    if view != "share":
        assert figures(at), view


@pytest.mark.parametrize("kind", ["llama", "qwen3", "gemma3"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_every_view_renders_on_a_tiny_random_checkpoint(kind, view, folders, local_server):
    at = page(str(folders[kind]), view, text=TEXT)
    assert not at.exception and not at.error, (kind, view)
    assert not at.warning, [w.value for w in at.warning]  # the text was read with the folder's tokenizer
    assert "key/value head" in said(at)


def test_all_heads_are_grouped_by_the_key_value_head_they_share():
    at = page(catalog.SHAKESPEARE_QWEN3, "grid")
    assert "heads 0–3 share key/value head 0; heads 4–7 share key/value head 1" in said(at)
    (grid,) = figures(at)
    lines = [s for s in grid["layout"]["shapes"] if s["type"] == "line"]
    assert len(lines) == 1  # between head 3 and head 4


def test_a_model_whose_context_is_shorter_than_the_example_shows_the_example_cut(folders, local_server):
    at = page(str(folders["llama"]), "grid", text="")
    assert not at.exception and not at.error
    assert "The text is empty" in said(at)
    chips = next(m.value for m in at.markdown if "token-chips" in m.value)
    assert chips.count("<code") == 16  # the example, cut to the model's context


def test_a_gemma_checkpoint_says_its_heads_share_one_key_value_head(folders, local_server):
    at = page(str(folders["gemma3"]), "grid", text=TEXT)
    assert "all 4 of this model's query heads share one key/value head" in said(at)


def test_todays_attention_asks_first_then_shows_the_models_own_numbers():
    import numpy as np
    import torch

    from attention.model import sentence, today
    from attention.model.checkpoint import load_model

    at = page(catalog.SHAKESPEARE_QWEN3, "today")
    assert not figures(at)  # nothing before a prediction
    question = at.button_group(key="m_today_sink")
    assert [o.replace("\\", "") for o in question.options] == [
        "Less than 10%",
        "Between 10% and 50%",
        "More than half",
        SHOW,
    ]
    model = load_model(catalog.SHAKESPEARE_QWEN3_PATH)
    info = catalog.info(catalog.SHAKESPEARE_QWEN3, None)
    ids, _ = sentence.encode(info, sentence.SHAKESPEARE_SENTENCE, 128)
    sinks = today.first_token_weight(model, ids, info.start_token)
    share = sinks.by_layer()[1][-1]
    at = answer(at, "m_today_sink", "More than half")
    right = share > 0.5
    assert at.success if right else at.error, "feedback after a pick"
    at = past_the_questions(at)
    charts = {f["layout"]["title"]["text"]: f for f in figures(at)}
    bars = charts["Weight on the first token, mean of each layer's heads"]
    from tests.specs import decode

    np.testing.assert_allclose(decode(bars["data"][1]["y"]), sinks.by_layer()[1], rtol=1e-5)
    assert "KV cache per token, in bytes" in charts
    assert (
        "2 (a key and a value) × layers (4) × key/value heads (2) × numbers per head (32) × "
        "bytes per number (4) = 2,048 B per token" in said(at)
    )
    held = today.cache_size(model, ids).held  # the two sliding layers keep 31 tokens each
    assert f"your sentence leaves {held:,} B in it" in said(at) and held < 2048 * len(ids)
    with torch.no_grad():
        assert model.trace(torch.tensor([ids])).weights.shape[1] == 8


def test_todays_attention_on_a_gpt_says_every_head_has_its_own_keys():
    at = page(catalog.SHAKESPEARE, "today")
    at = skip(at, "m_today_sink")
    assert "Every head of this model has its own keys and values" in said(at)
    assert "no layer has a sliding window" in said(at)
    assert not at.exception and not at.error


def test_where_it_decided_says_how_gemmas_norm_after_attention_enters_the_parts(folders, local_server):
    at = page(str(folders["gemma3"]), "lens", text=TEXT)
    assert "its scale fixed at this run's value" in said(at)
    at = page(str(folders["qwen3"]), "lens", text=TEXT)
    assert "adds no shift, so the shift's part is 0" in said(at) and "scale fixed" not in said(at)


@pytest.mark.parametrize("view", list(VIEWS))
def test_every_view_renders_on_a_model_built_in_bfloat16(view, tmp_path, local_server, monkeypatch):
    """A hub model in today's layouts is built in bfloat16 (hub.DTYPE, catalog.load): its traces
    come out in float32, so every view reads them (a tiny Gemma 3, the layout with the most parts)."""
    import torch

    from attention.model import hub

    tiny("gemma3", tmp_path, dtype=torch.bfloat16)
    word_tokenizer(tmp_path)
    real, built = catalog.load_model, []
    monkeypatch.setattr(
        catalog, "load_model", lambda source, dtype=None: built.append(real(source, hub.DTYPE)) or built[-1]
    )
    at = page(str(tmp_path), view, text=TEXT)
    if view == "lab":
        at = at.multiselect(key="m_ko").set_value(["1.2"]).run()
    if view == "explain":  # past the questions (none on a tie: "No question this time")
        for key in ("m_predict_attention", "m_predict_removal"):
            if asked(at, key):
                at = skip(at, key)
    if view == "today":
        at = past_the_questions(at)
    assert not at.exception and not at.error, (view, [e.value for e in at.exception])
    assert built and built[0].tok_emb.weight.dtype == torch.bfloat16


def test_a_tokenizer_that_puts_a_start_token_first_has_it_on_the_page(tmp_path, local_server):
    tiny("gemma3", tmp_path)
    word_tokenizer(tmp_path, bos=True)  # as Gemma's own: <bos> before every text
    at = page(str(tmp_path), "next", text=TEXT)
    assert not at.exception and not at.error
    chips = next(m.value for m in at.markdown if "token-chips" in m.value)
    assert chips.index("&lt;bos&gt;") < chips.index(">the<")


def test_a_modern_folder_without_its_tokenizer_is_refused_with_a_reason(tmp_path, local_server):
    tiny("llama", tmp_path)  # no tokenizer.json: its 96 ids are not GPT-2's
    at = page(str(tmp_path), "grid", text=TEXT)
    assert not at.exception
    assert "has no tokenizer.json" in at.error[0].value.replace("\\", "")
    assert at.selectbox(key="m_source").value != str(tmp_path)  # the page went back to a model it has
