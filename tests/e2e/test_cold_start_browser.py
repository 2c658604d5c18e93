"""A fresh server's first visit, in Chromium (ui/coldstart.py): the app's name and a progress line in
words show at once, while the server loads torch and the rest; then the Explorer's first heatmap.
A server of its own, started here: the session's shared one has long been warm."""

import time

from deploy.local import ROOT, start_streamlit

# Not a blank page: the app's name (the sidebar's heading) and the progress in words, visible (the
# words come as markdown first, then as the bar's label: ui/coldstart.py, the note under POLL).
FRAME = """() => { const visible = (selector, words) => [...document.querySelectorAll(selector)]
    .some(e => e.offsetParent !== null && words.test(e.innerText));
  return visible('h3', /Attention Explorer/)
    && visible('[data-testid="stMarkdown"], [data-testid="stProgress"]', /Starting up/); }"""


def cold_start(page) -> tuple[float, float, float]:
    """A fresh server's first visit: seconds from just before page.goto (a monotonic clock here) to
    the page's HTML loaded (goto returns then: Streamlit's frontend, ~1 s on 2 cores), to the frame
    (the websocket and the script's first lines on top of that), to the first heatmap."""
    proc, url = start_streamlit(ROOT / "app.py")
    try:
        start = time.monotonic()
        page.goto(url)
        loaded = time.monotonic() - start
        page.wait_for_function(FRAME, polling=50, timeout=30_000)
        frame = time.monotonic() - start
        page.locator('[data-testid="stProgress"]').wait_for(timeout=30_000)  # then the bar, in their place
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
        complete = time.monotonic() - start
        assert not page.get_by_text("Starting up").count()  # the frame gave way to the page
        assert page.get_by_role("heading", name="Attention Explorer").first.is_visible()
        return loaded, frame, complete
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_a_fresh_servers_first_visit_shows_the_frame_at_once_then_the_page(page):
    # Two cold starts at most, the first that shows its frame in time counts: under pytest-xdist the
    # other worker shares the two cores, and one of its bursts can cover one start (1.02 s once).
    delays = []
    for _ in range(2):
        loaded, frame, complete = cold_start(page)
        print(f"cold start: page loaded {loaded:.2f} s, frame {frame:.2f} s, first heatmap {complete:.2f} s")
        assert complete <= 20, f"the first page took {complete:.1f} s"
        delays.append(frame - loaded)
        if delays[-1] <= 1.0:
            break
    assert min(delays) <= 1.0, f"the frame came {delays} s after the page loaded"
