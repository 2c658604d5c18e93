"""The page's setup (ui/chrome.page_setup: the style sheet, the language, the accessibility
script) on a real server, spoken to in Streamlit's own websocket protocol: Streamlit drops a
session's unsent messages when its next run starts, and a closed connection carries nothing more,
so the setup goes again to a run that starts soon after it was sent, and to a reconnected browser."""

import asyncio
import time

from tests.e2e.conftest import in_thread
from tests.session_client import Session, Stats
from ui.chrome import SENT_WITHIN


def test_the_setup_goes_again_soon_after_it_was_sent_and_to_a_new_connection(server):
    url = server.replace("http://", "ws://")

    async def go():
        stats, sent, arrived = Stats(), [], []

        def listen(fwd, _):
            element = fwd.delta.new_element
            if element.WhichOneof("type") == "html" and "ae-app-css" in element.html.body:
                sent[-1] += 1
                arrived.append(time.monotonic())  # after the server timed its sending

        async def run(tab: Session) -> int:
            sent.append(0)
            await tab.rerun()
            return sent[-1]

        async with Session(url, stats) as warm:  # the page compiled, so a load takes well under 2 s
            await warm.rerun()
        async with Session(url, stats) as tab:
            tab.listen = listen
            start = time.monotonic()
            counts = [await run(tab)]  # the page load
            counts.append(await run(tab))  # a run right after: the first may have been dropped
            within = time.monotonic() - start < SENT_WITHIN  # both sendings: the server's within too
            # SENT_WITHIN after the first one arrived, so after the server's first sending too
            await asyncio.sleep(max(0.0, arrived[0] + SENT_WITHIN + 0.5 - time.monotonic()))
            counts.append(await run(tab))  # long enough after: it went out
        async with Session(url, stats, resume=tab.session_id) as again:  # the phone woke
            again.listen = listen
            counts.append(await run(again))  # a new connection, whatever the time
            await asyncio.sleep(SENT_WITHIN + 0.5)
            counts.append(await run(again))
        return stats, counts, within, (tab.session_id, again.session_id)

    stats, counts, within, (first, resumed) = in_thread(asyncio.run, go())
    assert not stats.errors
    assert first and resumed == first  # the same session, not a new one (which would send it anyway)
    # a machine too loaded to run the page twice within SENT_WITHIN has gone past it: no resend owed
    assert counts == [1, 1 if within else counts[1], 0, 1, 0]
