"""What one element costs a page load: server CPU per load of a page of N elements of one kind,
minus the same page with none, divided by N. The figures behind which elements a page sends
(issue 45: a page load is mostly Streamlit's work per element, not ours). Figures, not pass/fail.

    .venv/bin/python -m benchmarks.element_costs [--count 40] [--loads 60] [--kinds markdown radio ...]

Each kind is a page of its own (written to a temporary folder), served by a fresh Streamlit and
loaded one tab after another, one tab kept open (benchmarks/page_load.py). A widget page keeps
every widget's key in the session, as the app's pages do: Streamlit's own look at session state
from a radio, a selectbox or a number input reads every key (the app reads one: ui/internals.py,
which these bare pages do not load).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from benchmarks.page_load import measure

# kind -> one element of it, the i-th on the page (a statement inside `for i in range(N):`)
KINDS = {
    "none": "pass",
    "markdown": 'st.markdown(f"**W** {i}: a line of text | a | b |")',
    "html": 'st.html(f"<p>paragraph {i}</p>")',
    "page_link": 'st.page_link("https://example.com", label=f"link {i}")',
    "button": 'st.button(f"Show {i}", key=f"b{i}")',
    "selectbox": 'st.selectbox(f"pick {i}", ["a", "b", "c"], key=f"s{i}")',
    "radio": 'st.radio(f"Predict {i}", ["a", "b", "c"], index=None, key=f"r{i}")',
    # a predict-first question's form before the thirteenth session: the block and its Check
    # button (with the radio above); now a question is one element: pills
    "form": 'with st.form(key=f"f{i}", border=False):\n        st.form_submit_button("Check", key=f"c{i}")',
    "pills": 'st.pills(f"Predict {i}", ["a", "b", "c", "Show me"], key=f"p{i}", required=True)',
    "columns": "st.columns(3)",  # the row and its three columns: four blocks, no element
    "columns2": "st.columns(2)",  # three blocks
    "row": "st.container(horizontal=True)",  # ui/widgets.row: one block, its elements side by side
    # a class student's question the teacher has not asked: its disabled radio and the line under
    # it, alone or in a fragment of its own (ui/classroom/questions.py); the figure is per question
    "held": 'st.radio(f"Predict {i}", ["a", "b", "c"], index=None, key=f"h{i}", disabled=True)\n'
    '    st.caption("Your teacher is not asking this question now.")',
    "held_fragment": "st.fragment(lambda: (\n"
    '        st.radio(f"Predict {i}", ["a", "b", "c"], index=None, key=f"h{i}", disabled=True),\n'
    '        st.caption("Your teacher is not asking this question now."),\n'
    "    ))()",
}


def page_source(kind: str, count: int) -> str:
    return f"import streamlit as st\n\nfor i in range({count}):\n    {KINDS[kind]}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=40, help="elements on each page")
    parser.add_argument("--loads", type=int, default=60, help="loads of each page")
    parser.add_argument("--kinds", nargs="+", default=[k for k in KINDS if k != "none"], choices=list(KINDS))
    args = parser.parse_args(argv)
    errors = 0
    with tempfile.TemporaryDirectory(prefix="element_costs_") as folder:
        cpu = {}
        for kind in ["none", *[k for k in args.kinds if k != "none"]]:
            script = Path(folder) / f"{kind}_page.py"
            script.write_text(page_source(kind, args.count))
            cpu[kind], _, failed = measure(script, [""], "", args.loads)[""]
            errors += len(failed)
    print(f"{args.loads} loads of each page, {args.count} elements per page, one tab kept open")
    print(f"   an empty page: {cpu['none']:.2f} ms server CPU per load")
    for kind in args.kinds:
        if kind != "none":
            each = (cpu[kind] - cpu["none"]) / args.count
            print(f"   {kind}: {cpu[kind]:.2f} ms per load, {each:.3f} ms per element")
    print(f"errors {errors}")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
