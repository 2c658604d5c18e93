"""Inside a model's address: the model, sentence, view, layer, head, query token, temperature, the
token ids appended one step at a time, the lab's knocked-out heads, mode, map and corrupted
sentence, and the position explained and the ablation's baseline, parsed from the URL into the
page's widgets and written back (none at the opening view: a bare URL)."""

from __future__ import annotations

import streamlit as st

from attention.explorer.query_params import view_values
from attention.i18n import N_, tr
from attention.model import catalog, sentence
from ui import url
from ui.model import caches as models

VIEWS = {
    "grid": N_("All heads"),
    "head": N_("One head"),
    "tokens": N_("Token view"),
    "roles": N_("Head roles"),
    "next": N_("Next token"),
    "lab": N_("Knock out heads"),
    "map": N_("Head importance"),
    "lens": N_("Where it decided"),
    "explain": N_("Which explanation?"),
    "today": N_("Today's attention"),
    "share": N_("Share & export"),
}  # URL name (the m_view widget's value) -> the view's label, translated where shown (label)
# what a knocked-out head writes instead (interventions.MODES)
MODES = {"zero": N_("Zeros"), "mean": N_("Its mean")}
MAPS = {"ablation": N_("Knock out each head"), "patching": N_("Patch each head")}
METHODS = {
    "exact": N_("Exact: runs the model once per head"),
    "attribution": N_("Fast estimate: attribution"),
}
# what an ablated token's embedding becomes (attention.model.explain.BASELINES)
BASELINES = {"mean": N_("Mean embedding"), "zero": N_("Zeros")}
POSITION_VIEWS = ("lens", "explain")  # the views that explain the prediction at a chosen position
TEMPERATURES = [0.5, 0.7, 1.0, 1.5, 2.0]
WIDGETS = [
    *("m_source", "m_text", "m_view", "m_layer", "m_head", "m_query", "m_temperature", "m_appended"),
    *("m_ko", "m_mode", "m_map", "m_method", "m_corrupted", "m_group", "m_position", "m_baseline"),
]
GROUPS = ("tokens", "characters", "words")  # ui/model/groups.GROUPINGS' keys


def label(table: dict[str, str]):
    """A format_func for a widget whose values are `table`'s keys: its label in this rerun's language."""
    return lambda key: tr(table[key])


def opening() -> dict[str, str]:
    """The page's opening view (a bare URL): the default model on its example sentence."""
    model = catalog.default()
    return {"model": model, "text": sentence.opening_text(model), "view": "grid", "layer": "0", "head": "0"}


def load_url(raw: dict[str, tuple[str, ...]]) -> None:
    """The URL's view into the widgets (url.sync's `load`); what could not be used is noted."""
    s = st.session_state
    choices = catalog.choices(models.own_runs())
    spec = {
        "model": list(choices) + [k for k in (raw.get("model") or ())[-1:] if k not in choices],
        "view": list(VIEWS),
        "query": sentence.MAX_TOKENS,
        "temperature": [str(t) for t in TEMPERATURES],
        "mode": list(MODES),
        "map": list(MAPS),
        "method": list(METHODS),
        "group": list(GROUPS),
        "position": sentence.MAX_TOKENS,
        "baseline": list(BASELINES),
    }
    values, notes = view_values(raw, spec)
    s["m_source"] = values.get("model", catalog.default())
    s["m_text"] = str(raw["text"][-1])[:2000] if raw.get("text") else sentence.opening_text(s["m_source"])
    s["m_view"] = values.get("view", "grid")
    # the layer and head are checked against the model's own ranges once it is loaded (view_controls)
    s["_m_layer_head"] = {k: raw[k] for k in ("layer", "head") if k in raw}
    s.update(
        m_layer=0,
        m_head=0,
        m_query=values.get("query"),
        m_temperature=float(values.get("temperature", 1.0)),
    )
    s["m_appended"] = token_ids(raw.get("next"), notes)
    # the knocked-out heads are checked against the model's own heads in the lab (ui/model/lab.py)
    s["_m_ko"], s["m_ko"] = str(raw["ko"][-1])[:400] if raw.get("ko") else "", []
    s["m_mode"], s["m_map"] = values.get("mode", "zero"), values.get("map", "ablation")
    s["m_method"] = values.get("method", "exact")
    s["m_group"] = values.get("group", "tokens")
    s["m_corrupted"] = str(raw["corrupted"][-1])[:2000] if raw.get("corrupted") else ""
    # the position is checked against the sentence's length in the view (ui/model/lens.position_control)
    s["m_position"], s["m_baseline"] = values.get("position"), values.get("baseline", "mean")
    s["_m_position_url"] = s["m_position"] is not None
    s.pop("_m_position_ids", None)  # the link's position is for the link's sentence
    s["_model_notes"] = notes


def token_ids(raw: tuple[str, ...] | None, notes: list[str]) -> list[int]:
    """?next=1,2,3: the token ids appended one step at a time (kept as ids: re-encoding the decoded
    text could merge them into other tokens)."""
    if not raw:
        return []
    try:
        return [int(v) for v in str(raw[-1]).split(",") if v.strip()][: sentence.MAX_TOKENS]
    except ValueError:
        notes.append(
            tr("next={value} is not a list of token ids; appended nothing.", value=repr(str(raw[-1])[:40]))
        )
        return []


def layer_head(cfg: dict) -> list[str]:
    """The URL's layer and head, once per URL load, within the model's own layers and heads (a bad
    one: layer or head 0); what could not be used is noted."""
    s = st.session_state
    asked = s.pop("_m_layer_head", None)
    if asked is None:
        return []
    values, notes = view_values(asked, {"layer": cfg["n_layers"], "head": cfg["n_heads"]})
    s["m_layer"], s["m_head"] = values.get("layer", 0), values.get("head", 0)
    return notes


def view_name() -> str:
    """The chosen view's URL name ("grid", "head", ...)."""
    return st.session_state["m_view"]


LAST_VIEW = "_m_last_view"  # the last view shown other than Share & export: what a share link opens


def remember_view(shown: str) -> None:
    """Notes the view drawn (its URL name), so that Share & export's link reopens it."""
    if shown != "share":
        st.session_state[LAST_VIEW] = shown


def question_view(source: str, shown: str) -> dict[str, str]:
    """What a predict-first question on the view `shown` is computed from, as URL parameters that
    give it in every language (a class's question is computed on every phone from the teacher's):
    the model, the sentence and its appended tokens, the ablation's baseline."""
    s = st.session_state
    params = {"model": source, "text": s["m_text"], "view": shown}
    if s["m_appended"]:
        params["next"] = ",".join(map(str, s["m_appended"]))
    if s["m_baseline"] != "mean":
        params["baseline"] = s["m_baseline"]
    return params


def url_params(source: str, text: str, shown: str | None = None) -> dict[str, str]:
    """The view (`shown`, else the chosen one) as URL parameters; none at the opening view."""
    s = st.session_state
    shown = shown or view_name()
    params = {"model": source, "text": text, "view": shown}
    params |= {"layer": str(s["m_layer"]), "head": str(s["m_head"])}
    if shown == "tokens" and s["m_query"] is not None:
        params["query"] = str(s["m_query"])
    if shown in POSITION_VIEWS and s["m_position"] is not None:
        params["position"] = str(s["m_position"])
    if s["m_appended"]:
        params["next"] = ",".join(map(str, s["m_appended"]))
    if s["m_temperature"] != 1.0:
        params["temperature"] = str(s["m_temperature"])
    if s["m_ko"] or s.get("_m_ko"):  # the link's heads, until the lab has checked them against the model
        params["ko"] = ",".join(s["m_ko"]) or s["_m_ko"]
    defaults = {
        "m_mode": "zero",
        "m_map": "ablation",
        "m_method": "exact",
        "m_corrupted": "",
        "m_group": "tokens",
        "m_baseline": "mean",
    }
    params |= {key[2:]: s[key] for key, default in defaults.items() if s[key] != default}
    return {} if params == opening() else params


def share_link(source: str, text: str) -> str:
    """A link that opens the model, sentence, view, layer and head the student was looking at before
    Share & export (not Share & export itself; All heads if it was opened on it)."""
    return url.share_link(url_params(source, text, st.session_state.get(LAST_VIEW, "grid")))


def sync_url() -> None:
    """At the top of the page: the widgets from the URL when it is not the page's own."""
    url.sync("model", WIDGETS, load_url)


def keep_url(source: str, text: str) -> None:
    """At the end of the page: the view into the URL."""
    url.keep("model", url_params(source, text))
