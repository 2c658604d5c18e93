"""The Streamlit layer the pages share (not pages themselves): widgets in, plain values out.

Shared by every page:
    router.py          every page's first call: run through app.py's router, even on a fresh server
    chrome.py          the style sheets and the list of pages, built once; once-per-process setup
    wakeups.py         the server's event loop woken once per batch of messages, not per element
    url.py             the address bar: a page's view in, a share link out (sync / keep)
    widgets.py         charts, notes on corrected settings, user text made safe, self-checks
    cache.py           process-wide caches keyed by plain values (traces, and their figures)
    slots.py           waiting in line for a slot (attention.slots), the line's length shown
    coldstart.py       a fresh server's first visit: the frame and a progress line while the heavy
                       modules load (app.py's first call)
    internals.py       the one module that touches Streamlit's, asyncio's and plotly's private names

A room for each page with several modules (the page in pages/ composes them), a module for the rest:
    explorer/     the Explorer: sentence, knobs, view -> the chosen view drawn
    learn/        Learn: sentence and seed, then each step's sums and questions
    model/        Inside a model: models loaded once and shared, its address, its views, head roles, the lab
    train/        Watch it learn: Play/Pause/Stop for any Run, the words around it, each training's view
    compare.py    Compare: two sides' knobs, the examples, the variant table
    modern.py     Modern attention: each question, then its answer on the learner's sentence
    scaling.py    Scaling: the sweep with its progress, the sweeps kept

Rooms point down: pages -> a room -> the shared modules above -> internals.py -> attention/ and the
libraries (import-linter checks).

Streamlit lives here and in pages/, never in attention/.
"""
