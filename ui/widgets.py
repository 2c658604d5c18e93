"""Widgets the pages share: charts, notes on corrected settings, user text made safe, self-checks."""

from __future__ import annotations

import contextlib
import html
import json
import re

import numpy as np
import pandas as pd
import streamlit as st
from pandas.api.types import is_numeric_dtype
from streamlit.errors import StreamlitAPIException

from attention.devices import resolve_device
from attention.figures.alt import describe
from attention.figures.fit import fit
from attention.figures.layout import scale_text
from attention.i18n import separators, tr

_MARKUP = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character


def literal(text: str) -> str:
    """User text made safe for Streamlit's markdown (labels, captions, messages): every ASCII
    punctuation mark backslash-escaped (CommonMark allows it), so **bold**, [x](javascript:…),
    <img …>, $latex$ and :red[colour] directives all show as the characters typed."""
    return _MARKUP.sub(r"\\\1", text)


def show_notes(notes: list[str]) -> None:
    """Corrections, as text (never HTML): what was wrong and what is shown instead."""
    if notes:
        st.warning(tr("**Some settings could not be used as given; the page shows the closest valid view.**"))
        for note in notes:
            st.text("• " + note)


def device_caption(device: str) -> str:
    """The device that ran, in words, with the reason for any fallback."""
    choice = resolve_device(device)
    if not choice.reason:
        return choice.name
    # TRANSLATORS: a device's name, then why the run is not on the device that was asked for
    return tr("{device} ({reason})", device=choice.name, reason=choice.reason)


def narrow() -> bool:
    """A phone: Streamlit does not tell the server the window's width, but a phone's browser says
    "Mobi" in its user agent. Charts are drawn for ~360 px there."""
    return "Mobi" in (st.context.headers.get("User-Agent") or "")


def chart_width(wide: int) -> int:
    """The width a chart will be drawn at: `wide` on a screen, 360 px on a phone."""
    return 360 if narrow() else wide


MAIN_PX = 900  # the main column's width at 1366 x 768 (the smallest screen) with the sidebar open
HALF_PX, THIRD_PX = 440, 290  # a chart's width in one of two columns, of three


PROJECTOR_SCALE = 1.4  # text in charts in projector mode (the sidebar toggle)


def projected(fig, width: int | None = None):
    """The figure as this session shows it: in projector mode, every text in it 1.4 times larger;
    its titles wrapped to the width it is drawn at (`width`, else the main column's; a phone's)
    and clear of plotly's toolbar (attention/figures/fit.py); thousands grouped as the session's
    language groups them (hover text, axis ticks); named for screen readers (`named`)."""
    named(fig)
    if (marks := separators()) != ".,":  # plotly's own: set only where it differs
        fig.layout.separators = marks
    if st.session_state.get("projector"):
        scale_text(fig, PROJECTOR_SCALE, color="#000000")
    return fit(fig, chart_width(width or MAIN_PX))


def named(fig):
    """The figure's text alternative in its layout.meta (attention/figures/alt.py), which the
    browser puts on the chart (static/a11y.js): read before `fit` wraps its titles."""
    fig.layout.meta = describe(fig)
    return fig


def formulas(*parts: str, heading: str | None = None, lead: str = "") -> None:
    """Equations (LaTeX) in a row on a screen, one under another on a phone, where a row of them is
    wider than the page (app.css: one still too wide scrolls in its own box); under `heading` (a
    section's title, level 2) and its `lead` paragraph, in the same element: every element is a
    message to every browser on every page load (benchmarks/compare_commits.py)."""
    if heading is None:
        st.latex(_latex(parts))
    else:
        st.markdown(formulas_markdown(*parts, heading=heading, lead=lead))


def formulas_markdown(*parts: str, heading: str, lead: str = "") -> str:
    """formulas' element as markdown, for an element that carries more after it."""
    return f"## {heading}\n\n" + (f"{lead}\n\n" if lead else "") + f"$$\n{_latex(parts)}\n$$"


def _latex(parts: tuple[str, ...]) -> str:
    if narrow():
        return r"\begin{gathered}" + r" \\[6pt] ".join(parts) + r"\end{gathered}"
    return r" \qquad ".join(parts)


def code_block(text: str) -> str:
    """`text` (one line, user text in it) as a code block in markdown that reads HTML: its lines
    wrap as st.code(wrap_lines=True) does (app.css, .ae-wrap), and nothing in it is read as
    markdown or HTML (a fence longer than any run of backticks in it)."""
    text = text.replace("\n", " ")
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    return f'<div class="ae-wrap">\n\n{fence}\n{text}\n{fence}\n\n</div>'


def page_title(title: str, caption: str, help: str | None = None) -> None:
    """The page's title and the line under it, one element (every element is a message to every
    browser on every rerun: benchmarks/classroom.py)."""
    st.markdown(f"# {title}\n:small[:gray[{caption}]]", help=help)


def chart(fig, key: str, ready: bool = False, width: int | None = None) -> None:
    """A plotly chart with its PNG download (the modebar camera) kept, `projected` for `width` px
    (when it is not the main column's: in a column, say) unless it is `ready` (a figure shared by
    sessions, ui/cache.cached_figure: projected when it was built)."""
    if not ready:
        projected(fig, width)
    st.plotly_chart(
        fig, key=key, config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
    )


# the buttons a question's key names: the teacher's panel's
BUTTONS = ("_ask", "_reveal", "_again")


def reset_predictions(prefix: str) -> None:
    """In a callback, before the checks are drawn: every self-check whose key starts with `prefix`
    asked afresh. A question's answer is set to None, not deleted: a deleted key leaves the browser
    showing the old pick (the element's id is its key), with no feedback, and a click on it
    changes nothing; a value set through session state is sent to the browser and clears it."""
    s = st.session_state
    for key in [k for k in s if k.startswith(prefix)]:
        if key.endswith("_seen"):
            del s[key]
        elif not key.endswith(BUTTONS):  # a button's value set here is refused when it is drawn
            with contextlib.suppress(StreamlitAPIException):
                s[key] = None


def keep_choice(key: str, first: str) -> None:
    """Before a segmented control is drawn: a click on its chosen option unselects it (None), so
    put back the option it had (`first` at the start)."""
    s = st.session_state
    if s.get(key) is None:
        s[key] = s.get(f"_{key}_last", first)
    s[f"_{key}_last"] = s[key]


def plural(count: int, noun: str) -> str:
    """English only ("3 heads"): text a user reads says its count with tr_n, whose message the
    languages put in their own plural forms."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def markdown_table(frame: pd.DataFrame, digits: int | None = 4, corner: str = "#") -> str:
    """A small table (a few rows of a matrix, a token's id) as markdown: numbers right-aligned,
    with `digits` decimals (None: as they are), the index and every text escaped (literal); the
    index's column headed `corner` (a header cell left empty names nothing to a screen reader). One
    markdown element costs a string; st.dataframe serialises an Arrow stream on every load
    (py-spy: the largest part of Learn's load once its figures were cached)."""

    def cell(value) -> str:
        if digits is not None and isinstance(value, float | np.floating):
            text = f"{value:.{digits}f}"
            return text[1:] if text.startswith("-") and not text.strip("-0.") else text  # no "−0"
        return literal(str(value))

    header = f"| {literal(corner)} | " + " | ".join(literal(str(c)) for c in frame.columns) + " |"
    align = "|:--|" + "".join("--:|" if is_numeric_dtype(t) else ":--|" for t in frame.dtypes)
    rows = [
        f"| {literal(str(i))} | " + " | ".join(cell(v) for v in row) + " |"
        for i, row in zip(frame.index, frame.itertuples(index=False), strict=True)
    ]
    return "\n".join([header, align, *rows])


def side_by_side(*rows: list[str], above: str = "") -> None:
    """Rows of small markdown blocks (a table under its bold name) side by side, wrapping on a
    phone, all as ONE element, with the markdown `above` them (a step's title and formulas):
    st.columns(3) sends four blocks and three elements, ~0.7 ms of a page load's CPU against
    ~0.15 for one (benchmarks/element_costs.py). Each text is markdown between HTML blocks
    (CommonMark: a blank line ends one). This element reads HTML (the layout's own): every text,
    `above` too, must already have its user text escaped (markdown_table and literal do), so
    that no `<` of a learner's token can open a tag or an HTML block here."""
    html = f"{above}\n\n" if above else ""
    for texts in rows:
        cells = "".join(f'<div class="ae-cell">\n\n{text}\n\n</div>\n\n' for text in texts)
        html += f'<div class="ae-row">\n\n{cells}</div>\n\n'
    st.markdown(html, unsafe_allow_html=True)


def row(vertical_alignment: str = "top", pair: str | None = None):
    """Elements side by side, wrapping where the page is too narrow: one block, where st.columns(2)
    sends three (benchmarks/element_costs.py). A `pair` (a name unique on the page) of charts share
    the row in halves (app.css: a chart alone would take the whole row)."""
    key = None if pair is None else f"ae_pair_{pair}"
    return st.container(horizontal=True, vertical_alignment=vertical_alignment, gap="medium", key=key)


def decimals(frame: pd.DataFrame, digits: int | dict = 4) -> dict:
    """st.dataframe's keywords that draw `frame`'s numbers with `digits` decimals (one for all
    columns, or per column): the browser formats them. A pandas Styler formats every cell in Python
    on every rerun: a third of Learn's load (py-spy). The numbers stay whole (a download has them
    all), but a tiny negative that would show as "−0.0000" is 0."""
    places = digits if isinstance(digits, dict) else dict.fromkeys(frame.columns, digits)
    config = {str(c): st.column_config.NumberColumn(format=f"%.{d}f") for c, d in places.items()}
    columns = {c: frame[c].to_numpy() for c in frame.columns}  # numpy: 10x cheaper than pandas' where
    shown = {c: _no_minus_zero(v, places[c]) if c in places else v for c, v in columns.items()}
    return {"data": pd.DataFrame(shown, index=frame.index, columns=frame.columns), "column_config": config}


def _no_minus_zero(values: np.ndarray, digits: int) -> np.ndarray:
    if not np.issubdtype(values.dtype, np.floating):
        return values
    return np.where((values < 0) & (values > -0.5 * 10.0**-digits), 0.0, values)


TABLE_ROWS = 25  # rows shown without scrolling


def number_table(frame: pd.DataFrame, key: str, digits: int | dict = 4) -> None:
    """A table of numbers as the book prints them (4 decimals; `digits` as decimals takes it), every
    row visible up to TABLE_ROWS; a longer one scrolls with its last row (a sum, say) moved to the top."""
    if len(frame) > TABLE_ROWS:
        frame = pd.concat([frame.iloc[-1:], frame.iloc[:-1]])
    row = 48 if st.session_state.get("projector") else 35  # projector text makes rows taller
    height = row * (min(len(frame), TABLE_ROWS) + 1) + 3
    st.dataframe(**decimals(frame, digits), height=height, width="stretch", key=key)


_COPY = """<button id="copy" type="button" title="TIP">LABEL</button>
<style>
  body { margin: 0; font-family: "Source Sans Pro", "Source Sans 3", sans-serif; }
  button { font: inherit; font-size: 15px; padding: 5px 12px; border-radius: 8px; cursor: pointer;
           border: 1px solid rgba(49, 51, 63, 0.3); background: #fff; color: #31333f; width: 100%; }
  button:hover { border-color: #1f5fbf; color: #1f5fbf; }
</style>
<script>
  const button = document.getElementById("copy");
  button.onclick = async () => {
    const query = QUERY, at = window.parent.location;  // the view's query string, or the address bar
    const own = new URL(at.href); own.searchParams.delete("class"); own.searchParams.delete("student");
    const href = query === null ? own.href : at.origin + at.pathname + (query ? "?" + query : "");
    try { await navigator.clipboard.writeText(href); }
    catch (error) {  // plain http on a classroom network has no clipboard API
      const text = document.createElement("textarea");
      text.value = href; document.body.appendChild(text); text.select();
      document.execCommand("copy"); text.remove();
    }
    button.textContent = COPIED;
    setTimeout(() => { button.textContent = AGAIN; }, 2000);
  };
</script>"""


def copy_link_button(query: str | None = None) -> None:
    """One click copies the link to this page with `query` (a view's query string), or else the
    page's address, which holds its whole view (less the class and this student's token: a shared
    link joins nobody). Our own static script in a same-origin iframe (it
    reads the parent's address; the query goes in as a JSON string with "<" escaped, so no text of
    it can end the script)."""
    big = st.session_state.get("projector")
    page = _COPY.replace("font-size: 15px", "font-size: 20px") if big else _COPY
    label, tip = html.escape(tr("Copy link")), html.escape(tr("Copy the link to this view"))
    page = page.replace('"TIP">LABEL<', f'"{tip}">{label}<')
    page = page.replace("COPIED;", _script_text(tr("Copied ✓")) + ";")
    page = page.replace("AGAIN;", _script_text(tr("Copy link")) + ";")
    # the query last, so that nothing in it is taken for a placeholder; null: the address bar
    page = page.replace("QUERY,", json.dumps(query).replace("<", "\\u003c") + ",")
    st.iframe(page, height=44 if big else 38)


def _script_text(value: str) -> str:
    """`value` as a JavaScript string inside our script: "<" escaped, so no text of it
    can end the script."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")
