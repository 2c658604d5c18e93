"""Inside a model reads the student's sentence back: the loss on each token (the model's own
−log p, from its logits), and for a language model a note when the sentence starts with
<|endoftext|>, what it is and why GPT-2 begins documents with it."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attention.model import catalog, sentence
from tests.app.conftest import figure, session
from tests.specs import decode

LINE = "ROMEO:\nBut, soft! what light through yonder window breaks?"


def page(**params):
    at = session(120)
    at.switch_page("pages/model.py")
    at.query_params.update(params)
    return at.run()


def notes(at) -> str:
    return " ".join(box.value for box in at.info)


@pytest.mark.parametrize("text", [LINE, "<|endoftext|>" + LINE])
def test_next_token_shows_the_loss_on_each_token_of_the_sentence(text):
    at = page(model=catalog.SHAKESPEARE, view="next", text=text)
    assert not at.exception
    model, info = catalog.load(catalog.SHAKESPEARE)
    ids, _ = sentence.encode(info, text, model.cfg["context_length"])
    with torch.no_grad():
        logits = model(torch.tensor([ids]))[0].double()  # (T, vocab)
    expected = F.cross_entropy(logits[:-1], torch.tensor(ids[1:]), reduction="none").numpy()
    shown = decode(figure(at, "Loss on each token")["data"][0]["y"])
    assert len(shown) == len(ids) and np.isnan(shown[0])
    np.testing.assert_allclose(shown[1:], expected, rtol=1e-4, atol=1e-4)
    caption = " ".join(c.value for c in at.caption)
    assert f"{np.nanmean(np.r_[np.nan, expected]):.2f} nats per token" in caption


def test_a_sentence_that_starts_with_endoftext_says_what_it_is():
    assert "<|endoftext|>" in notes(page(model=catalog.SHAKESPEARE, text="<|endoftext|>" + LINE))
    assert "<|endoftext|>" not in notes(page(model=catalog.SHAKESPEARE, text=LINE))


def test_the_copy_model_gets_no_note_it_reads_no_language():
    at = page(model=catalog.BUNDLED, text="<|endoftext|>" + LINE)
    assert not at.exception and "<|endoftext|>" not in notes(at)
