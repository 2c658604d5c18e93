"""The shipped Shakespeare model on the pages: Inside a model opens it by default (offline) on a line
with a repeated phrase, its next-token top 10 are its own probabilities, its head roles are measured
on lines of text; Watch it learn replays its recorded training, the induction task's steps shaded."""

import numpy as np
import torch

from attention.model import catalog, sentence
from attention.model.checkpoint import load_gpt2
from attention.training import replay
from tests.app.conftest import figures, session, url_params
from tests.specs import decode


def model_page(**params):
    at = session(120, **params)
    at.switch_page("pages/model.py")
    return at


def test_inside_a_model_opens_shakespeare_on_a_repeated_line():
    at = model_page().run()
    assert not at.exception and not at.error
    assert at.selectbox(key="m_source").value == catalog.SHAKESPEARE
    assert at.text_input(key="m_text").value == sentence.SHAKESPEARE_SENTENCE
    said = [e.value for e in (*at.caption, *at.markdown)]
    assert any("This model learned from 36 of Shakespeare" in text for text in said)  # under the picker


def test_its_next_tokens_are_its_own_probabilities():
    at = model_page(view="next").run()
    model = load_gpt2(catalog.SHAKESPEARE_PATH)
    info = catalog.info(catalog.SHAKESPEARE, None)
    ids, _ = sentence.encode(info, sentence.SHAKESPEARE_SENTENCE, model.cfg["context_length"])
    with torch.no_grad():
        expected = torch.softmax(model(torch.tensor([ids]))[0, -1].double(), -1).topk(10).values.numpy()
    bars = figures(at)[0]["data"][0]
    np.testing.assert_allclose(decode(bars["x"]), expected, rtol=1e-4)
    at = at.button(key="m_append").click().run()  # append and step: a Shakespeare-like continuation
    assert not at.exception and len(url_params(at)["next"].split(",")) == 1


def test_its_head_roles_are_measured_on_lines_of_text():
    at = model_page(view="roles").run()
    assert not at.exception
    assert at.segmented_control(key="m_probes").value == "text"  # a language model's default


def test_watch_it_learn_replays_its_training():
    at = session(120)
    at.switch_page("pages/train.py")
    at = at.run()
    at = at.selectbox(key="tr_task").set_value("shakespeare").run()
    intro = next(m.value for m in at.markdown if "Shakespeare's plays for" in m.value)
    assert "layers: 4, heads in each: 4, width 128" in intro and "2,500 of them" in intro  # from the record
    at.radio(key="tr_pace").set_value("fast")
    at = at.button(key="tr_play").click().run()
    assert not at.exception
    record = replay.record(str(catalog.SHAKESPEARE_PATH))
    assert f"Replayed {record['snapshots'][-1]['step']} recorded steps" in at.success[-1].value
    curves = figures(at)[0]
    names = [d["name"] for d in curves["data"]]
    assert "training loss, induction task" in names and "training loss, the plays" in names
    band = curves["layout"]["shapes"][0]
    assert band["type"] == "rect" and band["x1"] == record["task_steps"]


def test_watch_it_learn_replays_the_qwen3_layout_models_training_too():
    at = session(120)
    at.switch_page("pages/train.py")
    at = at.run()
    at = at.selectbox(key="tr_task").set_value(catalog.SHAKESPEARE_QWEN3).run()
    intro = next(m.value for m in at.markdown if "today's layout: Qwen3's" in m.value)
    assert "query heads: 8, sharing key/value heads: 2" in intro and "(window: 32)" in intro  # the record
    at.radio(key="tr_pace").set_value("fast")
    at = at.button(key="tr_play").click().run()
    assert not at.exception
    record = replay.record(str(catalog.SHAKESPEARE_QWEN3_PATH))
    assert f"Replayed {record['snapshots'][-1]['step']} recorded steps" in at.success[-1].value
    link = next(p for p in at.get("page_link") if "Look inside this model" in p.proto.label)
    assert "model=shakespeare-qwen3" in link.proto.page or "shakespeare-qwen3" in str(link.proto)
