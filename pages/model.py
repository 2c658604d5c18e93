"""Inside a model: a real GPT's attention, computed by the book's own classes, every head's role
measured live, and the model's next token, one step at a time."""

import json

import pandas as pd
import streamlit as st

from attention.chapter3.query_params import view_values
from attention.errors import ConfigError
from attention.figures import explorer as steps
from attention.figures import model as figures
from attention.figures.layout import token_labels
from attention.model import catalog, sentence
from attention.model.roles import PUBLISHED, ROLES, ranked
from ui import models, url
from ui.router import use_router
from ui.widgets import chart, chart_width, literal, show_notes

use_router()

VIEWS = {
    "grid": "All heads",
    "head": "One head",
    "tokens": "Token view",
    "roles": "Head roles",
    "next": "Next token",
    "share": "Share & export",
}
STEP_NAMES = ["scores", "scaled_scores", "masked_scores", "weights"]
KEYS = ["m_source", "m_text", "m_view", "m_layer", "m_head", "m_query", "m_temperature", "m_appended"]
s = st.session_state


def _load_url(raw: dict) -> None:
    choices = catalog.choices()
    spec = {
        "model": list(choices) + [k for k in (raw.get("model") or ())[-1:] if k not in choices],
        "view": list(VIEWS),
        "layer": 64,
        "head": 64,
        "query": sentence.MAX_TOKENS,
        "temperature": [str(t) for t in (0.5, 0.7, 1.0, 1.5, 2.0)],
    }
    values, notes = view_values(raw, spec)
    s["m_source"] = values.get("model", catalog.BUNDLED)
    s["m_text"] = str(raw["text"][-1])[:2000] if raw.get("text") else sentence.SENTENCE
    s["m_view"] = VIEWS[values.get("view", "grid")]
    s.update(
        m_layer=values.get("layer", 0),
        m_head=values.get("head", 0),
        m_query=values.get("query"),
        m_temperature=float(values.get("temperature", 1.0)),
    )
    s["m_appended"] = _token_list(raw.get("next"), notes)
    s["_model_notes"] = notes


def _token_list(raw, notes: list[str]) -> list[int]:
    """?next=1,2,3: the token ids appended one step at a time (kept as ids: re-encoding the decoded
    text could merge them into other tokens)."""
    if not raw:
        return []
    try:
        return [int(v) for v in str(raw[-1]).split(",") if v.strip()][: sentence.MAX_TOKENS]
    except ValueError:
        notes.append(f"next={str(raw[-1])[:40]!r} is not a list of token ids; appended nothing.")
        return []


def _params(source: str, text: str) -> dict[str, str]:
    """The view as URL parameters; none at the opening view."""
    params = {
        "model": source,
        "text": text,
        "view": next(k for k, v in VIEWS.items() if v == s["m_view"]),
        "layer": str(s["m_layer"]),
        "head": str(s["m_head"]),
    }
    if s["m_view"] == VIEWS["tokens"]:
        params["query"] = str(s["m_query"])
    if s["m_appended"]:
        params["next"] = ",".join(map(str, s["m_appended"]))
    if s["m_temperature"] != 1.0:
        params["temperature"] = str(s["m_temperature"])
    if params == {
        "model": catalog.BUNDLED,
        "text": sentence.SENTENCE,
        "view": "grid",
        "layer": "0",
        "head": "0",
    }:
        params = {}  # the opening view: a bare URL
    return params


def _open(role: str, layer: int, head: int, text: str) -> None:
    """One click: the head, on a sentence where its role shows."""
    s.update(m_layer=layer, m_head=head, m_view=VIEWS["head"], m_text=text, m_query=None, m_appended=[])


url.sync("model", KEYS, _load_url)

st.title("Inside a model")
st.caption(
    "A real GPT's attention, computed by the book's chapter-4 GPTModel, whose blocks are the very "
    "MultiHeadAttention of chapter 3 — with trained weights, so the patterns mean something."
)
show_notes(s.pop("_model_notes", []))

# --- the model ---------------------------------------------------------------------------------
choices = catalog.choices()
if s["m_source"] not in choices:  # a folder or repo from the URL or the box
    try:
        catalog.check_source(s["m_source"])
        choices[s["m_source"]] = f"Local: {s['m_source']}"
    except ConfigError as error:
        st.error(literal(f"{error} Showing the bundled model instead."))
        s["m_source"] = catalog.BUNDLED
listed_only = catalog.listed_only()  # a class server can turn the folder box off (README: A lecture hall)
left, right = (st, None) if listed_only else st.columns([3, 2])
left.selectbox(
    "Model",
    list(choices),
    key="m_source",
    format_func=choices.get,
    help="The bundled model works offline. Hub models download once (Hugging Face's cache) when picked.",
)
path = ""
if not listed_only:
    path = right.text_input(
        "…or a folder on this server",
        key="m_path",
        placeholder="/path/with/config.json",
        help="config.json + model.safetensors in GPT-2's layout (Hugging Face's save_pretrained).",
    )
source = path.strip() or s["m_source"]
try:
    model, info = models.model(source)
except ConfigError as error:
    st.error(literal(f"{error} Showing the bundled model instead."))
    source = catalog.BUNDLED
    model, info = models.model(source)
cfg = model.cfg
st.caption(
    f"**{literal(info.name)}**: {cfg['n_layers']} layers × {cfg['n_heads']} heads, d = {cfg['emb_dim']}, "
    f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters, "
    f"context {cfg['context_length']} tokens"
    + (f". Trained on {literal(info.trained_on)}." if info.trained_on else ".")
)

# --- the sentence -----------------------------------------------------------------------------
text = st.text_input(
    "Sentence", key="m_text", help="Press Enter to apply. A repeated phrase shows induction heads."
)
try:
    ids, tokens = sentence.encode(info, text, cfg["context_length"], s["m_appended"])
except ConfigError as error:
    s["m_appended"] = []
    st.warning(literal(f"{error} Showing the example sentence instead."))
    ids, tokens = sentence.encode(
        info, sentence.SENTENCE if not info.symbols else " ".join(info.symbols[:8]), cfg["context_length"]
    )
view = models.view(source, model, ids, tokens)
st.caption(
    "Tokens as the model sees them (· is a space): "
    + literal(" ".join(tokens[:60]))
    + (" …" if len(tokens) > 60 else "")
)

# --- which head ---------------------------------------------------------------------------------
s["m_layer"], s["m_head"] = min(s["m_layer"], cfg["n_layers"] - 1), min(s["m_head"], cfg["n_heads"] - 1)
if s["m_view"] is None:  # a click on the chosen view unselects it; set before the widget is drawn
    s["m_view"] = VIEWS["grid"]
st.segmented_control("View", list(VIEWS.values()), key="m_view", label_visibility="collapsed")
c1, c2, c3 = st.columns([1, 1, 3])
layer = c1.selectbox("Layer", range(cfg["n_layers"]), key="m_layer")
head = c2.selectbox("Head", range(cfg["n_heads"]), key="m_head")
n = len(tokens)
if s["m_query"] is None or s["m_query"] >= n:
    s["m_query"] = n - 1

if s["m_view"] == VIEWS["grid"]:
    st.caption(
        "Every head's weights on your sentence (rows are queries, columns keys), head “layer.head” as the "
        "literature names them; the chosen head is framed. Pick one above for its numbers."
    )
    chart(figures.model_grid(view.weights, (layer, head)), key="m_grid")

elif s["m_view"] == VIEWS["head"]:
    trace = models.layer(source, model, ids, layer)
    step = (
        st.segmented_control(
            "Step", STEP_NAMES, key="m_step", default="weights", label_visibility="collapsed"
        )
        or "weights"
    )
    panel = steps.step_panels(trace, head, [step], head_name=f"{layer}.{head}")[0]
    figure = steps.step_figure(list(tokens), panel, width_px=chart_width(960), fitted=n > 24)
    chart(figure, key="m_step_chart")
    labels = token_labels(tokens)
    columns = st.columns(3)
    for column, name in zip(columns, ("queries", "keys", "values"), strict=True):
        with column:
            title = f"{name}, head {layer}.{head} {steps.shape_text(trace, name)}"
            chart(
                steps.vectors_heatmap(getattr(trace, name)[0, head], labels, title, width_px=320),
                key=f"m_{name}",
            )

elif s["m_view"] == VIEWS["tokens"]:
    labels = [f"{i}: {t}" for i, t in enumerate(tokens)]
    q1, q2 = st.columns([2, 3])
    query = q1.selectbox("Token", range(n), key="m_query", format_func=labels.__getitem__)
    every = q2.toggle("All heads of the layer", key="m_all_heads")
    shown_heads = list(range(cfg["n_heads"])) if every else [head]
    st.caption(
        f"Layer {layer}: where “{literal(tokens[query])}” looks. Thicker, darker lines carry more weight."
    )
    chart(figures.token_view(list(tokens), view.weights[layer], query, shown_heads), key="m_token_view")

elif s["m_view"] == VIEWS["roles"]:
    scores = models.roles(source, model, info)
    st.markdown(
        "Each head's role, measured on probe sequences (a start token, a random prefix, L random tokens, "
        "the same L again; L and the prefix vary, so looking a fixed distance back does not pass as "
        "induction). A score is the attention a head puts on the keys its role expects, averaged over the "
        "queries: 1 = always exactly there."
    )
    for row in (list(ROLES)[:2], list(ROLES)[2:]):
        for column, role in zip(st.columns(2), row, strict=True):
            with column:
                chart(figures.role_heatmap(scores[role], role, ROLES[role]), key=f"m_role_{role}")
    top = pd.DataFrame(ranked(scores, top=3))
    st.dataframe(
        top[["role", "head", "score"]].style.format({"score": "{:.3f}"}), hide_index=True, width="content"
    )
    if info.is_gpt2_small:
        st.info(
            "Published for GPT-2 small: induction heads "
            + ", ".join(PUBLISHED["induction"])
            + "; previous-token heads "
            + ", ".join(PUBLISHED["previous"])
            + " (Olsson et al. 2022; Wang et al. 2022). Compare them with the measured tops above."
        )
    repeated = sentence.SENTENCE if not info.symbols else " ".join(info.symbols[:6] * 2)
    buttons = st.columns(4)
    for column, role in zip(buttons, ROLES, strict=True):
        best = next(r for r in ranked(scores, top=1) if r["role"] == role)
        example = repeated if role in ("induction", "duplicate") else text
        column.button(
            f"Open the best {role} head ({best['head']})",
            key=f"m_open_{role}",
            on_click=_open,
            args=(role, best["layer"], best["index"], example),
        )

elif s["m_view"] == VIEWS["next"]:
    temperature = st.select_slider(
        "Temperature",
        [0.5, 0.7, 1.0, 1.5, 2.0],
        key="m_temperature",
        help="Divides the logits before the softmax: below 1 sharpens, above 1 flattens.",
    )
    candidates = sentence.next_tokens(view.next_logits, info, temperature)
    chart(figures.next_token_bars(candidates, temperature), key="m_next")
    best_id, best_text, best_p = candidates[0]

    def _step() -> None:
        s["m_appended"], s["m_query"] = [*s["m_appended"], best_id], None

    st.button(
        f"Append “{literal(best_text)}” and step",
        key="m_append",
        on_click=_step,
        type="primary",
        help="Adds the most likely token to the sentence: then see in Token view where the new token looks.",
    )
    if s["m_appended"]:
        shown = " ".join(tokens[-len(s["m_appended"]) :])
        st.caption(f"Appended so far: {literal(shown)}. Token view shows where the newest token looks.")
        st.button(
            "Clear the appended tokens", key="m_clear", on_click=lambda: s.update(m_appended=[], m_query=None)
        )
    st.caption("Generating token by token: each new token attends to everything before it (Token view).")

else:
    st.markdown("**Share.** This link opens the model, sentence, layer and head you are looking at:")
    st.code(url.share_link({k: v for k, v in _params(source, text).items() if k != "view"}), language=None,
            wrap_lines=True)  # fmt: skip
    grid = {
        "model": source,
        "tokens": list(tokens),
        "ids": list(ids),
        "layout": "weights[layer][head][query][key]",
        "shape": list(view.weights.shape),
    }
    st.download_button(
        "Every head's weights (JSON)",
        lambda: json.dumps(grid | {"weights": view.weights.round(5).tolist()}),
        file_name="weights.json",
        mime="application/json",
        on_click="ignore",
    )
    rows = [f"{i}:{t}" for i, t in enumerate(tokens)]
    st.download_button(
        f"Head {layer}.{head}'s weights (CSV)",
        lambda: pd.DataFrame(view.weights[layer, head], index=rows, columns=rows).to_csv(),
        file_name=f"weights_{layer}.{head}.csv",
        mime="text/csv",
        on_click="ignore",
    )

url.keep("model", _params(source, text))
