"""Explorer vs a one-heatmap reference app, in real headless Chromium, in one run.

    .venv/bin/python -m benchmarks.explorer_update [--tokens 8 64 256] [--repeats 5]

For each T it opens the Explorer (MultiHeadAttention, H = 12, default view) and the reference
app (benchmarks/reference_app.py: one T x T plotly heatmap), changes the seed control, and
measures the time until the changed heatmap is drawn, and the bytes the server sent for that
update: on the wire (a counting TCP proxy sits between browser and server, so websocket
compression counts) and as decompressed websocket payload. Bytes per heatmap cell = wire bytes
/ cells of every heatmap on the page. Targets: Explorer <= 1.5x the reference's
update time at T = 8 and 64; <= 4 bytes per heatmap cell.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import statistics
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from deploy.local import ROOT, free_ports, start_streamlit
from tests.chromium import IDLE, launch

HERE = Path(__file__).resolve().parent
LAST_ROW = """() => { const d = document.querySelector('.js-plotly-plot');
    if (!d || !d.calcdata) return null;
    const z = d.calcdata[0][0].z; return z ? Array.from(z[z.length - 1]).join(',') : null; }"""
HEATMAP_CELLS = """() => [...document.querySelectorAll('.js-plotly-plot')]
    .reduce((n, d) => n + (d.calcdata || [])
        .filter(c => c[0] && c[0].trace && c[0].trace.type === 'heatmap')
        .reduce((m, c) => m + c[0].z.length * c[0].z[0].length, 0), 0)"""


class CountingProxy:
    """A loopback TCP proxy that counts the bytes the server sends to the browser."""

    def __init__(self, target_port: int):
        self.target_port, self.sent = target_port, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()

    def _pump(self, source, sink, count):
        try:
            while data := source.recv(65536):
                if count:
                    self.sent += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self):
        self.listener.close()


def explorer_query(tokens: int, seed: int) -> str:
    return urlencode(
        {
            "text": " ".join(f"w{i}" for i in range(tokens)),
            "embedding": "random",
            "d_in": 16,
            "variant": "mha",
            "d_out": 48,
            "heads": 12,
            "seed": seed,
        }
    )


class Session:
    """One browser page on one app, whose seed control the benchmark turns."""

    def __init__(self, browser, url: str, proxy: CountingProxy):
        self.proxy, self.received = proxy, []
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.page = self.context.new_page()
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda p: self.received.append(len(p))))
        self.page.goto(url)
        self.page.wait_for_selector(IDLE, timeout=120_000)
        self.page.wait_for_function(LAST_ROW, timeout=120_000)
        self.seed_box = self.page.locator('input[aria-label="seed"]')

    def update(self, seed: int) -> tuple[float, int, int]:
        """Change the seed; (seconds until the changed heatmap is drawn, wire bytes, payload bytes)."""
        page = self.page
        before = page.evaluate(LAST_ROW)
        self.received.clear()
        wire_before = self.proxy.sent
        start = time.perf_counter()
        self.seed_box.fill(str(seed))
        self.seed_box.press("Enter")
        page.wait_for_function(
            f"(b) => {{ const s = ({LAST_ROW})(); return s && s !== b; }}", arg=before, timeout=120_000
        )
        page.wait_for_selector(IDLE, timeout=120_000)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        return time.perf_counter() - start, self.proxy.sent - wire_before, sum(self.received)

    def cells(self) -> int:
        return self.page.evaluate(HEATMAP_CELLS)

    def close(self):
        self.context.close()


def compare(browser, urls: tuple[str, str], proxies, repeats: int) -> list[dict]:
    """Explorer and reference updated alternately, so machine noise hits both alike; the first
    update of each warms caches and is not counted."""
    sessions = [Session(browser, url, proxy) for url, proxy in zip(urls, proxies, strict=True)]
    samples: list[list[tuple]] = [[], []]
    for i in range(repeats + 1):
        for k, session in enumerate(sessions):
            result = session.update(1000 + i)
            if i:
                samples[k].append(result)
    out = []
    for session, rows in zip(sessions, samples, strict=True):
        seconds, wire, payload = (statistics.median(column) for column in zip(*rows, strict=True))
        out.append({"ms": seconds * 1e3, "bytes": wire, "payload": payload, "cells": session.cells()})
        session.close()
    return out


def main(argv: list[str] | None = None) -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tokens", type=int, nargs="+", default=[8, 64, 256])
    parser.add_argument("--repeats", type=int, default=9, help="updates per app (3 at T > 64)")
    args = parser.parse_args(argv)
    ports = free_ports(2)
    servers = [
        start_streamlit(ROOT / "app.py", ports[0])[0],
        start_streamlit(HERE / "reference_app.py", ports[1])[0],
    ]
    proxies = [CountingProxy(port) for port in ports]
    rows = []
    try:
        with sync_playwright() as p:
            browser = launch(p)
            for tokens in args.tokens:
                urls = (
                    f"http://127.0.0.1:{proxies[0].port}/?{explorer_query(tokens, 1)}",
                    f"http://127.0.0.1:{proxies[1].port}/?tokens={tokens}",
                )
                ours, ref = compare(browser, urls, proxies, args.repeats if tokens <= 64 else 3)
                rows.append((tokens, ours, ref))
            browser.close()
    finally:
        for proxy in proxies:
            proxy.close()
        for s in servers:
            s.terminate()
    print(f"Seed change -> updated heatmap; headless Chromium; median of {args.repeats} updates; H = 12")
    head = [
        "T",
        "explorer ms",
        "reference ms",
        "ratio",
        "wire bytes",
        "payload bytes",
        "heatmap cells",
        "wire B/cell",
        "ref wire B/cell",
    ]
    print(" ".join(f"{h:>{max(6, len(h))}}" for h in head))
    for tokens, ours, ref in rows:
        values = [
            f"{tokens}",
            f"{ours['ms']:.0f}",
            f"{ref['ms']:.0f}",
            f"{ours['ms'] / ref['ms']:.2f}",
            f"{ours['bytes']:,.0f}",
            f"{ours['payload']:,.0f}",
            f"{ours['cells']:,}",
            f"{ours['bytes'] / ours['cells']:.2f}",
            f"{ref['bytes'] / ref['cells']:.2f}",
        ]
        print(" ".join(f"{v:>{max(6, len(h))}}" for v, h in zip(values, head, strict=True)))
    print("targets: ratio <= 1.5 at T = 8 and 64; <= 4 bytes per heatmap cell")


if __name__ == "__main__":
    main()
