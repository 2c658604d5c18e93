"""The Streamlit layer the pages share (not pages themselves): widgets in, plain values out.

Shared by every page:
    router.py          every page's first call: run through app.py's router, even on a fresh server
    chrome.py          the style sheets and the list of pages, built once; once-per-process setup
    wakeups.py         the server's event loop woken once per batch of messages, not per element
    url.py             the address bar: a page's view in, a share link out (sync / keep)
    widgets.py         charts, notes on corrected settings, user text made safe, self-checks
    cache.py           process-wide caches keyed by plain values (traces, and their figures)
    slots.py           waiting in line for a slot (attention.slots), the line's length shown

One page's controls and views each (the page in pages/ composes them):
    controls.py, explorer_views.py    the Explorer: sentence, knobs, view -> the chosen view drawn
    compare.py                        Compare: two sides' knobs, the examples, the variant table
    scaling.py                        Scaling: the sweep with its progress, the sweeps kept
    learn.py, learn_steps.py          Learn: sentence and seed, then each step's sums and questions
    models.py, model_url.py,          Inside a model: models loaded once and shared, its address,
    model_views.py, lab.py            the picker, sentence and its views; the lab (knock out, importance)
    player.py, tiny.py, induction.py  Watch it learn: Play/Pause/Stop for any Run, and each task's view

Streamlit lives here and in pages/, never in attention/.
"""
