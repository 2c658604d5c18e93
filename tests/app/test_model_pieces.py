"""Inside a model on Korean and Ukrainian sentences: GPT-2 splits their letters into byte tokens;
no axis, hover or token label shows <0x..> or "�", and the grouped view (per character, per word)
is made of the per-token view's numbers."""

import json

import numpy as np
import pytest

from attention.i18n.sentences import JOURNEY
from attention.model import catalog, pieces, tokenizer
from attention.model.sentence import encode, sentence_view
from tests.app.conftest import figures, session
from tests.app.test_model import token_chips
from ui.model.groups import grouped

BAD = ("<0x", "�", "\\x")


def page(**params):
    at = session(120)
    at.switch_page("pages/model.py")
    at.query_params.update({"model": catalog.default()} | params)
    return at


def labels_in(at) -> list[str]:
    """Every string the page's charts carry (ticks, hover, text) and its token chips."""
    found = token_chips(at)
    for fig in figures(at):
        found += [s for s in json.dumps(fig, ensure_ascii=False).split('"') if s.strip()]
    return found


@pytest.mark.parametrize("lang", ["ko", "uk"])
@pytest.mark.parametrize("view", ["grid", "tokens", "head"])
@pytest.mark.parametrize("group", ["tokens", "characters", "words"])
def test_no_label_is_a_byte_code(lang, view, group):
    at = page(text=JOURNEY[lang], view=view, group=group).run()
    assert not at.exception
    bad = [s for s in labels_in(at) if any(b in s for b in BAD)]
    assert not bad, bad[:10]
    if lang == "ko" and group == "tokens":
        assert token_chips(at)[:3] == ["당 1/2", "당 2/2", "신 1/3"]


def test_the_grouped_control_changes_the_grid_rows_and_keeps_the_url():
    at = page(text=JOURNEY["ko"], view="grid", group="characters").run()
    assert not at.exception and at.query_params["group"] in ("characters", ["characters"])
    ticks = [a.get("ticktext") for f in figures(at) for k, a in f["layout"].items() if k.startswith("yaxis")]
    assert any(t and "당" in t for t in ticks)  # a whole syllable, one row


@pytest.fixture(scope="module")
def korean_view():
    gpt, info = catalog.load(catalog.default())
    ids, tokens = encode(info, JOURNEY["ko"], gpt.cfg["context_length"])
    return sentence_view(gpt, ids, tokens), info


@pytest.mark.parametrize("by", ["characters", "words"])
def test_grouped_rows_sum_to_one_and_are_sums_of_the_model_s_own_weights(korean_view, by):
    view, info = korean_view
    seen = grouped(view, by, info)
    members, _ = pieces.groups(tokenizer.token_bytes(view.ids), "character" if by == "characters" else "word")
    assert seen.weights.shape[-1] == len(members) < len(view.ids)
    np.testing.assert_allclose(seen.weights.sum(-1), 1.0, atol=1e-5)
    for qi, q in enumerate(members):  # every cell, every layer and head
        for ki, k in enumerate(members):
            np.testing.assert_allclose(
                seen.weights[..., qi, ki], view.weights[..., q[-1], :][..., k].sum(-1), rtol=1e-5, atol=1e-7
            )
