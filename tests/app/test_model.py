"""Inside a model under AppTest: every view, the numbers are the model's own, the link, and bad
input (empty or long text, unknown models, folders that are not checkpoints, no network)."""

import html
import json
import re
import time
from urllib.parse import parse_qs

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from attention.model import catalog, sentence
from attention.model.checkpoint import load_gpt2
from tests.app.conftest import figures, session, url_params
from tests.specs import decode
from ui.model.url import VIEWS as VIEW_LABELS

VIEWS = ["All heads", "One head", "Token view", "Head roles", "Next token", "Share & export"]
KEYS = {label: key for key, label in VIEW_LABELS.items()}  # a view's label -> its widget value (URL name)


@pytest.fixture(scope="module")
def bundled():
    model = load_gpt2(catalog.BUNDLED_PATH)
    return model, catalog.info(catalog.BUNDLED, None)


def page(**params) -> AppTest:
    """The page on the copy model (these tests check its numbers), unless `params` name another."""
    at = session(120)
    at.switch_page("pages/model.py")
    at.query_params.update({"model": catalog.BUNDLED} | params)
    return at


def view(at, name: str):
    """`at` switched to the view labelled `name` (the widget holds its URL name: "head")."""
    return at.segmented_control(key="m_view").set_value(KEYS[name]).run()


def test_the_copy_model_shows_every_head(bundled):
    model, _ = bundled
    at = page().run()
    assert not at.exception and not at.error
    (grid,) = figures(at)
    thumbnails = [d for d in grid["data"] if d["type"] == "heatmap"]
    assert len(thumbnails) == model.layers * model.heads and thumbnails[0]["z"]["dtype"] == "u1"
    assert grid["layout"]["annotations"][0]["text"] == "<b>0.0</b>"  # heads named layer.head


# What each view shows of the copy model: its charts' count and a line only that view writes.
SHOWS = {
    "All heads": (1, "every head's weights on your sentence"),
    "One head": (4, "weights = softmax(masked_scores)"),
    "Token view": (1, "Thicker, darker lines carry more weight"),
    "Head roles": (4, "induction: weight on the token after the earlier copy"),
    "Next token": (2, "Next token: softmax(logits / 1)"),  # and the loss on each token of the sentence
    "Share & export": (0, "**Share.** This link opens the model, sentence, view, layer and head"),
}


@pytest.mark.parametrize("name", VIEWS)
def test_every_view_renders(name):
    at = view(page().run(), name)
    assert not at.exception and not at.error
    charts, line = SHOWS[name]
    titles = [(f["layout"].get("title") or {}).get("text") or "" for f in figures(at)]
    assert len(titles) == charts
    assert any(line in text for text in [*titles, *(e.value for e in [*at.caption, *at.markdown])]), line
    if name == "Share & export":
        labels = [button.proto.label for button in at.get("download_button")]
        assert labels == ["Every head's weights (JSON)", "Head 0.0's weights (CSV)"]


def test_one_head_shows_the_models_own_numbers(bundled):
    model, info = bundled
    at = page(view="head", layer="1", head="2").run()
    at = at.segmented_control(key="m_step").set_value("weights").run()
    ids, tokens = sentence.encode(info, sentence.SENTENCE, model.cfg["context_length"])
    expected = sentence.trace_of(model, ids).layers[1].weights[0, 2].numpy()
    np.testing.assert_allclose(decode(figures(at)[0]["data"][0]["z"]), expected, rtol=1e-6)
    assert [f["layout"]["title"]["text"].split(",")[0] for f in figures(at)[1:]] == [
        "queries",
        "keys",
        "values",
    ]


def test_token_view_draws_one_token_to_what_it_looks_at():
    at = page(view="tokens").run()
    fig = figures(at)[0]
    assert "head 0" in [d.get("name") for d in fig["data"]]
    at = at.toggle(key="m_all_heads").set_value(True).run()
    names = [d.get("name") for d in figures(at)[0]["data"] if d.get("name")]
    assert names == [f"head {h}" for h in range(len(names))] and len(names) > 1


def test_head_roles_and_one_click_to_the_best_induction_head():
    at = page(view="roles").run()
    maps = [f for f in figures(at) if f["data"][0]["type"] == "heatmap"]
    assert [f["data"][0]["name"] for f in maps] == ["previous", "first", "duplicate", "induction"]
    table = at.dataframe[0].value
    assert set(table["role"]) == {"previous", "first", "duplicate", "induction"}
    best = table[table["role"] == "induction"].iloc[0]["head"]
    at = at.button(key="m_open_induction").click().run()
    assert at.segmented_control(key="m_view").value == "head"
    assert f"{at.selectbox(key='m_layer').value}.{at.selectbox(key='m_head').value}" == best


def test_a_head_opened_for_its_role_says_what_stripe_to_look_for():
    """The copy model's example says a 16-token line twice: its induction head's stripe is 15 below
    the diagonal; the words come before the weights, which are the step shown; another head, no words."""
    at = page(view="roles").run()
    at = view(at, "One head")
    at = at.segmented_control(key="m_step").set_value("scores").run()  # a step left from before
    at = view(at, "Head roles").button(key="m_open_induction").click().run()
    said = at.info[0].value
    assert "best induction head" in said and "a stripe 15 below the diagonal (L − 1)" in said
    assert "stretch of L tokens (L = 16)" in said
    assert figures(at)[0]["data"][0]["name"] == "weights"  # the first chart: the weights, not the scores
    assert [i.proto.srcdoc for i in at.get("iframe")] != []  # the page goes back to the top
    at = view(at, "Head roles").button(key="m_open_previous").click().run()
    assert "a stripe just below the diagonal" in at.info[0].value
    head = at.selectbox(key="m_head").value
    at = at.selectbox(key="m_head").set_value((head + 1) % 4).run()
    assert not [i for i in at.info if "was opened as" in i.value]  # words only for the head opened
    at = at.selectbox(key="m_head").set_value(head).run()
    assert [i for i in at.info if "was opened as" in i.value]  # back on it: the words again
    at = at.text_input(key="m_text").set_value("A new sentence, with nothing repeated").run()
    assert not [i for i in at.info if "was opened as" in i.value]  # and on its sentence only


def test_next_token_probabilities_are_the_models_and_append_steps(bundled):
    model, info = bundled
    at = page(view="next").run()
    bars = figures(at)[0]["data"][0]
    ids, _ = sentence.encode(info, sentence.SENTENCE, model.cfg["context_length"])
    with torch.no_grad():
        expected = torch.softmax(model(torch.tensor([ids]))[0, -1].double(), -1).topk(10).values.numpy()
    np.testing.assert_allclose(decode(bars["x"]), expected, rtol=1e-4)
    at = at.select_slider(key="m_temperature").set_value(2.0).run()
    flatter = decode(figures(at)[0]["data"][0]["x"])
    assert flatter[0] < expected[0]
    best = int(torch.softmax(model(torch.tensor([ids]))[0, -1], -1).argmax())
    at = at.button(key="m_append").click().run()
    at = at.button(key="m_append").click().run()
    assert url_params(at)["next"].split(",")[0] == str(best)  # token-exact: kept as ids
    assert len(url_params(at)["next"].split(",")) == 2
    at = view(at, "Token view")
    assert at.selectbox(key="m_query").value == len(ids) + 1  # the newest token


def test_a_link_holds_model_sentence_layer_and_head():
    at = page().run()
    at = at.text_input(key="m_text").set_value("the cat sat on the mat").run()
    at = at.selectbox(key="m_layer").set_value(1).run()
    at = view(at, "One head")
    params = url_params(at)
    assert params["text"] == "the cat sat on the mat" and params["layer"] == "1" and params["view"] == "head"
    fresh = page(**params).run()
    assert fresh.text_input(key="m_text").value == "the cat sat on the mat"
    assert fresh.selectbox(key="m_layer").value == 1 and fresh.segmented_control(key="m_view").value == "head"


@pytest.mark.parametrize(
    "params, message",
    [
        ({"text": " "}, "The text is empty"),
        ({"text": "word " * 300}, "this page shows at most 128"),
        ({"layer": "99", "head": "-1"}, "is not a whole number"),
        ({"view": "<script>"}, "is not one of"),
    ],
)
def test_bad_input_gets_a_clear_message_and_the_page_goes_on(params, message):
    at = page(**params).run()
    assert not at.exception
    said = " ".join(m.value for m in [*at.warning, *at.text, *at.error])
    assert message in said.replace("\\", "")
    assert figures(at)  # the rest still draws


@pytest.mark.parametrize("folder", ["/does/not/exist", "tests"])
def test_a_folder_that_is_not_a_checkpoint(folder, local_server):
    at = page().run()
    at = at.text_input(key="m_path").set_value(folder).run()
    said = at.error[0].value.replace("\\", "")
    assert not at.exception
    assert "Showing “Copy model: learned to copy random tokens”, the model you had open," in said
    assert figures(at)


def test_a_class_server_hides_the_folder_box_and_opens_only_its_list(monkeypatch):
    monkeypatch.setenv("ATTENTION_LISTED_MODELS_ONLY", "1")  # docs/classroom.md: who may open what
    at = page(model=str(catalog.BUNDLED_PATH)).run()  # a real checkpoint, named by its path
    assert not at.exception
    message = at.error[0].value.replace("\\", "")
    assert "only the models in its Model list" in message
    # a fresh session had no model open: the page's default
    assert "Showing “Shakespeare: has read 36 plays”, the default model, instead" in message
    assert [box.key for box in at.text_input] == ["m_text"]  # no "folder on this server"
    assert at.selectbox(key="m_source").value == catalog.default() and figures(at)


def test_a_public_server_says_the_same_for_every_name_it_refuses(public_server):
    """Its default: a real folder, a missing one and a hub repo from a link get one message, so a
    visitor learns nothing of the server's paths; the picker says what this server opens."""
    said = []
    for name in (str(catalog.BUNDLED_PATH), "/does/not/exist", "someone/gpt2-finetuned"):
        at = page(model=name).run()
        assert not at.exception and at.selectbox(key="m_source").value == catalog.default() and figures(at)
        message = at.error[0].value  # "Could not open <the name asked for>: …": the rest is one text
        said.append(message[message.index("This server") :])
        assert [box.key for box in at.text_input] == ["m_text"]  # no "folder on this server"
    assert len(set(said)) == 1 and "only the models in its Model list" in said[0].replace("\\", "")
    assert any("opens only the models listed here" in c.value for c in at.caption)


def test_picking_a_hub_model_without_a_network_says_so_within_seconds(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens: the network is unreachable
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    at = page().run()
    start = time.perf_counter()
    at = at.selectbox(key="m_source").set_value("openai-community/gpt2").run()
    assert time.perf_counter() - start < 10
    assert not at.exception
    message = at.error[0].value.replace("\\", "")
    assert "Could not download openai-community/gpt2" in message and "548 MB" in message
    assert figures(at)  # the bundled model's view, still working


# --- model loads wait in line for a slot ----------------------------------------------------------


def test_a_model_load_waits_for_a_free_slot_then_loads_by_itself(monkeypatch):
    import threading

    import ui.model.caches
    from attention.slots import MODEL_LOADS

    monkeypatch.setattr(ui.model.caches, "_loaded", {})  # as on a server that has not loaded it yet
    other = MODEL_LOADS.ticket()
    assert other.ask() == 0  # another student's load holds the only slot
    waiting = []  # how many were in line when the other load finished: this page, waiting
    threading.Timer(1.5, lambda: (waiting.append(MODEL_LOADS.waiting), other.release())).start()
    at = page().run()
    assert waiting == [1]  # it waited in line
    assert not at.exception and figures(at)  # then loaded by itself
    assert MODEL_LOADS.running == 0 and catalog.BUNDLED in ui.model.caches._loaded  # and gave the slot back
    asked = []
    monkeypatch.setattr(ui.model.caches, "wait_for", lambda *a: asked.append(a))
    at = page().run()  # loaded once: a second session opens it without asking for a slot
    assert not at.exception and figures(at) and not asked


def test_a_click_on_the_chosen_view_keeps_that_view():
    """A segmented control's chosen option, clicked again, unselects it (None): the page stays on
    the view it was on (it jumped to All heads)."""
    at = view(page().run(), "Head roles")
    at = at.segmented_control(key="m_view").set_value(None).run()
    assert not at.exception and at.segmented_control(key="m_view").value == "roles"
    assert url_params(at)["view"] == "roles" and figures(at)
    at = view(at, "One head").segmented_control(key="m_step").set_value("scores").run()
    at = at.segmented_control(key="m_step").set_value(None).run()  # the same for One head's step
    assert at.segmented_control(key="m_step").value == "scores"
    assert figures(at)[0]["data"][0]["name"] == "scores"


def test_the_share_link_holds_the_head_being_looked_at():
    at = page(layer="1", head="1", text="a b a b").run()
    at = view(at, "Share & export")
    (link,) = [c.value for c in at.code]
    query = parse_qs(link.partition("?")[2])
    assert query["layer"] == ["1"] and query["head"] == ["1"] and query["text"] == ["a b a b"]
    assert query["view"] == ["grid"]  # the view it was on, not this tab


def test_the_share_link_reopens_the_view_it_was_on():
    """From One head (or Token view, with its token) to Share & export: the link opens that view,
    layer and head, not All heads."""
    at = view(page(layer="1", head="2", text="a b c a b c").run(), "One head")
    at = view(at, "Share & export")
    (link,) = [c.value for c in at.code]
    query = {k: v[0] for k, v in parse_qs(link.partition("?")[2]).items()}
    assert (query["view"], query["layer"], query["head"]) == ("head", "1", "2")
    fresh = page(**query).run()
    assert fresh.segmented_control(key="m_view").value == "head"
    assert (fresh.selectbox(key="m_layer").value, fresh.selectbox(key="m_head").value) == (1, 2)
    at = view(at, "Token view")
    at = view(at.selectbox(key="m_query").set_value(4).run(), "Share & export")
    (link,) = [c.value for c in at.code]
    query = parse_qs(link.partition("?")[2])
    assert query["view"] == ["tokens"] and query["query"] == ["4"]


def token_chips(at) -> list[str]:
    """The tokens line's chips, as the page labels them (each one's bytes are its hover)."""
    (line,) = [m.value for m in at.markdown if 'class="token-chips"' in m.value]
    return [html.unescape(t) for t in re.findall(r"<code[^>]*>(.*?)</code>", line)]


def test_a_new_sentence_clears_the_appended_tokens():
    at = page(view="next").run()
    at = at.button(key="m_append").click().run()
    at = at.button(key="m_append").click().run()
    assert len(url_params(at)["next"].split(",")) == 2
    at = (
        at.text_input(key="m_text")
        .set_value("The animal didn't cross the street because it was too tired")
        .run()
    )
    assert not at.exception and "next" not in url_params(at)
    assert token_chips(at)[-2:] == ["·too", "·tired"]  # nothing the student did not type
    assert "m_clear" not in [b.key for b in at.button]  # nothing appended to clear


def test_a_layer_or_head_out_of_range_names_the_models_own_range():
    at = page(layer="99", head="4").run()  # the bundled model: 2 layers × 4 heads
    assert not at.exception
    said = " ".join(m.value for m in [*at.warning, *at.text]).replace("\\", "")
    assert "is not a whole number 0..1" in said and "is not a whole number 0..3" in said
    assert "0..63" not in said
    assert at.selectbox(key="m_layer").value == 0 and at.selectbox(key="m_head").value == 0
    assert figures(at)


# --- walkthrough findings: the picker shows what is drawn; roles that no head has; what it learned --


def test_a_hub_model_that_cannot_be_downloaded_leaves_the_picker_on_the_bundled_model(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens: the network is unreachable
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    at = page().run()
    at = at.selectbox(key="m_source").set_value("openai-community/gpt2").run()
    assert not at.exception and len(at.error) == 1
    assert at.selectbox(key="m_source").value == catalog.BUNDLED  # what is drawn: the model it had
    said = at.error[0].value.replace("\\", "")
    assert "Showing “Copy model: learned to copy random tokens”, the model you had open, instead" in said
    assert "ATTENTION_MODEL_PATH" not in said  # the administrator's details are folded away
    (details,) = at.expander
    assert "ATTENTION_MODEL_PATH" in " ".join(t.value for t in details.text)
    at = view(at, "Head roles")  # the next view change: no second try, no second message
    assert not at.exception and not at.error
    assert at.selectbox(key="m_source").value == catalog.BUNDLED


def test_a_pick_that_cannot_be_opened_goes_back_to_the_model_the_student_had(monkeypatch, tmp_path):
    """On Shakespeare (the default), GPT-2 with no network: back to Shakespeare, named; not to the
    copy model. Then a refused model from a link, in the same session: back to Shakespeare too."""
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens: the network is unreachable
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    at = session(120)
    at.switch_page("pages/model.py")
    at = at.run()
    assert at.selectbox(key="m_source").value == catalog.SHAKESPEARE == catalog.default()
    at = at.selectbox(key="m_source").set_value("openai-community/gpt2").run()
    assert not at.exception and at.selectbox(key="m_source").value == catalog.SHAKESPEARE
    said = at.error[0].value.replace("\\", "")
    assert "Showing “Shakespeare: has read 36 plays”, the model you had open, instead" in said
    assert "bundled" not in said
    at.query_params.update(model="someone/gpt2-finetuned")
    at = at.run()
    assert at.selectbox(key="m_source").value == catalog.SHAKESPEARE
    assert "the model you had open" in at.error[0].value


@pytest.mark.parametrize("bad", ["../../etc", "<script>alert(1)</script>", "some/nonexistent-repo"])
def test_a_model_from_the_url_that_cannot_be_opened_is_not_added_to_the_picker(
    bad, monkeypatch, tmp_path, local_server
):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the hub id: no network either
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    at = page(model=bad).run()
    assert not at.exception and len(at.error) == 1
    picker = at.selectbox(key="m_source")
    assert picker.value == catalog.default()  # a fresh session had none: the page's default
    assert not [o for o in picker.options if bad in o or o.startswith("Local:")]
    assert figures(at)
    at = view(at, "Next token")
    assert not at.exception and not at.error


def test_a_role_no_head_has_gets_no_button():
    """The bundled copy model's best duplicate head scores 0.05: no button offers it as one."""
    at = page(view="roles").run()
    table = at.dataframe[0].value
    best = {role: table[table["role"] == role]["score"].max() for role in table["role"].unique()}
    assert best["duplicate"] < 0.3 and best["induction"] > 0.3
    keys = [b.key for b in at.button]
    captions = " ".join(c.value for c in at.caption)
    for role, score in best.items():
        if score < 0.3:  # attention.model.lab.CLEAR_ROLE
            assert f"m_open_{role}" not in keys
            assert f"No head of this model has a clear {role} role" in captions
            assert f"at {score:.2f})" in captions
        else:
            assert f"m_open_{role}" in keys


@pytest.mark.parametrize("name", VIEWS)
def test_every_view_says_what_the_model_learned_and_what_its_patterns_mean(name):
    at = view(page().run(), name)
    said = [c.value for c in at.caption if c.value.startswith("This model learned")]
    assert said == [
        "This model learned to copy repeated stretches of tokens, not language. Its heads show where a "
        "repeat is, not grammar."
    ]
    assert not [c for c in at.caption if "so the patterns mean something" in c.value]


# --- walkthrough findings 3-7: a readable, clickable grid; roles; one head; token view; the limit -----


def test_the_grid_labels_its_tokens_states_its_scale_and_offers_a_click_on_every_head(bundled):
    model, _ = bundled
    at = page().run()
    (grid,) = figures(at)
    (scale,) = [d for d in grid["data"] if d.get("showscale")]
    assert scale["colorbar"]["ticktext"] == ["0", "0.5", "1"]  # the uint8 0..255 read as weights 0..1
    assert grid["layout"]["yaxis"]["ticktext"][0] == "Alice"  # the first column's rows: queries
    last_row = f"xaxis{(model.layers - 1) * model.heads + 1}"
    assert grid["layout"][last_row]["ticktext"][0] == "Alice"  # the last row's columns: keys
    (targets,) = [d for d in grid["data"] if d["type"] == "scatter"]
    heads = [[layer, head] for layer in range(model.layers) for head in range(model.heads)]
    assert targets["customdata"] == heads and "click to open" in targets["hovertemplate"]
    chart = at.get("plotly_chart")[0].proto
    assert json.loads(chart.config)["displayModeBar"] is False  # no toolbar over the heads' titles
    assert list(chart.selection_mode) == [0]  # points: a click on a target reaches the server
    said = " ".join(c.value for c in at.caption)
    assert "dark purple (weight 0) to yellow (weight 1)" in said and "Click a head to open it" in said


def test_head_roles_say_which_heads_are_as_good_as_the_best_and_hide_the_layer_and_head():
    """The bundled model's four layer-1 heads all score 0.93-0.97 on induction: which is 'best'
    depends on the probes (Watch it learn, on its own probes, named another)."""
    at = page(view="roles").run()
    table = at.dataframe[0].value
    induction = table[table["role"] == "induction"]
    best, second = induction.iloc[0], induction.iloc[1]
    assert best["score"] - second["score"] <= 0.05
    (near,) = [c.value for c in at.caption if "the same job" in c.value]
    assert f"{second['head']} ({second['score']:.2f})" in near and "changes with the random probes" in near
    assert len(table) == 12  # every row drawn (the height: tests/e2e)
    assert [box.key for box in at.selectbox if box.key != "lang"] == ["m_source"]  # no Layer and Head here


@pytest.mark.parametrize("name", ["Head roles", "Next token", "Share & export"])
def test_views_that_ignore_the_layer_and_head_do_not_show_them(name):
    at = view(page(layer="1", head="2").run(), name)
    assert "m_layer" not in [box.key for box in at.selectbox]
    at = view(at, "One head")  # kept while hidden
    assert at.selectbox(key="m_layer").value == 1 and at.selectbox(key="m_head").value == 2


def test_one_head_fits_a_laptop_screen_and_explains_queries_keys_and_values():
    at = page(view="head", layer="1", head="2").run()
    step = figures(at)[0]
    assert step["layout"]["height"] <= 600  # it was 924 px at 32 tokens: more than a 768-px screen
    said = " ".join(c.value for c in at.caption)
    assert "**query** is what it looks for" in said and "(batch, heads, tokens, head_dim)" in said


def test_the_token_view_opens_in_the_second_copy_and_keeps_every_heads_lines_apart(bundled):
    model, info = bundled
    at = page(view="tokens").run()
    ids, tokens = sentence.encode(info, sentence.SENTENCE, model.cfg["context_length"])
    query = at.selectbox(key="m_query").value
    assert len(tokens) // 2 < query < len(tokens) - 1  # in the repeat, not the last "."
    at = at.toggle(key="m_all_heads").set_value(True).run()
    lines = [d for d in figures(at)[0]["data"] if d.get("mode") == "lines" and d["x"] != [None]]
    starts = {d["line"]["color"]: d["y"][0] for d in lines}  # each head's lines leave the query apart
    assert len(starts) == model.heads and len(set(starts.values())) == model.heads


def test_at_the_token_limit_append_is_disabled_and_the_sentence_stays():
    text = "a" + " a" * 126  # 127 tokens: one more fits the bundled model's 128
    at = page(view="next", text=text).run()
    at = at.button(key="m_append").click().run()
    assert not at.exception and not at.warning
    assert at.button(key="m_append").disabled
    assert any("so no more can be appended" in c.value for c in at.caption)
    shown = "".join(token_chips(at))
    assert "Alice" not in shown and len(url_params(at)["next"].split(",")) == 1  # not the example sentence


def test_appended_tokens_that_do_not_fit_are_dropped_not_the_sentence():
    at = page(view="next", text="a" + " a" * 126, next="64,64").run()  # a link one token too long
    assert not at.exception
    said = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "without the appended tokens" in said and "example sentence" not in said
    assert "next" not in url_params(at)


def test_head_roles_say_which_probes_and_measure_on_lines_of_text_too(bundled):
    from attention.model import roles

    model, info = bundled
    at = view(page().run(), "Head roles")
    assert at.segmented_control(key="m_probes").value == "random"  # the copy model never read text
    said = lambda: " ".join(m.value for m in at.markdown)  # noqa: E731
    assert "measured on test sequences of random tokens" in said()
    at = at.segmented_control(key="m_probes").set_value("text").run()
    assert not at.exception and "well-known lines of English" in said()
    expected = roles.text_roles(model, sentence.natural_probes(), info.start_token)
    shown = [f for f in figures(at) if f["data"][0].get("name") == "induction"][0]
    np.testing.assert_allclose(decode(shown["data"][0]["z"]), expected["induction"], rtol=1e-5)


def test_a_gated_hub_model_without_a_token_says_how_to_set_one(monkeypatch, tmp_path):
    """Gemma 3 270M with no HF_TOKEN: refused before the hub is asked, in words a teacher can act on."""
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # were the hub asked, this would say so
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    at = page().run()
    assert "needs HF_TOKEN" in at.selectbox(key="m_source").format_func("google/gemma-3-270m")
    at = at.selectbox(key="m_source").set_value("google/gemma-3-270m").run()
    assert not at.exception and len(at.error) == 1
    assert "google/gemma-3-270m is gated" in at.error[0].value.replace("\\", "")
    (details,) = at.expander
    assert "Set HF_TOKEN" in " ".join(t.value for t in details.text)
    assert at.selectbox(key="m_source").value == catalog.BUNDLED
