"""A chart's text alternative (attention/figures/alt.py): its name says what the chart shows, and
its sentence is computed from the numbers drawn, checked here against numpy on the same numbers."""

import re

import numpy as np
import pytest

from attention import i18n
from attention.explorer import ExplorerConfig, run
from attention.figures import explorer as figures
from attention.figures.alt import describe, plain
from attention.figures.classroom import LINE, _width, answer_bars
from attention.figures.train import training_curves

BOOK = ExplorerConfig(heads=2, d_out=4)  # the book's "Your journey starts with one step", 6 tokens


@pytest.fixture(autouse=True)
def english():
    i18n.use("en")
    yield
    i18n.use("en")


def weights_figure(config: ExplorerConfig = BOOK, head: int = 0):
    trace = run(config)
    panel = [p for p in figures.step_panels(trace, head) if p.name == "weights"][0]
    return trace, figures.step_figure(trace.tokens.texts, panel)


def test_a_heatmap_is_named_with_its_size_and_what_its_rows_and_columns_are():
    trace, fig = weights_figure()
    name = describe(fig)["name"]
    assert name.startswith(plain(fig.layout.title.text))
    assert "heatmap, 6 × 6" in name and "rows: queries" in name and "columns: keys" in name


def test_each_head_has_a_name_of_its_own():
    """The subtitle (its step, shape and head) is part of the name: moving to the chart of another
    head, a screen reader says which."""
    names = [describe(weights_figure(head=head)[1])["name"] for head in (0, 1)]
    assert "head 0" in names[0] and "head 1" in names[1] and names[0] != names[1]


def test_a_grid_of_one_head_is_named_after_its_only_panel():
    """No layout title: the name is the panel's title (a grid of one head: the Explorer's All heads
    view of a one-head module), with no subtitle to add."""
    trace = run(ExplorerConfig(heads=1, d_out=2))
    name = describe(figures.heads_grid(trace.weights[0].numpy()))["name"]
    assert name.startswith("head 0 (heatmap, 6 × 6")


@pytest.mark.parametrize("head", [0, 1])
def test_a_heatmap_says_each_rows_largest_and_the_diagonal_as_numpy_finds_them(head):
    trace, fig = weights_figure(head=head)
    weights = trace.weights[0, head].numpy()
    summary = describe(fig)["summary"]
    tokens = trace.tokens.texts
    pairs = "; ".join(f"{tokens[i]} → {tokens[j]}" for i, j in enumerate(weights.argmax(axis=1)))
    assert f"Largest in each row: {pairs}." in summary
    on_diagonal = int((weights.argmax(axis=1) == np.arange(len(tokens))).sum())
    assert f"In {on_diagonal} of 6 rows, the largest value is on the diagonal." in summary
    r, c = np.unravel_index(weights.argmax(), weights.shape)
    assert f"in row {tokens[r]}, column {tokens[c]}." in summary


def test_every_position_of_a_long_sentence_is_read_and_only_a_short_one_is_listed():
    """64 tokens: the largest value is found over every cell; rows are not listed one by one."""
    text = " ".join(f"w{i}" for i in range(64))
    config = ExplorerConfig(text=text, embedding="random", heads=1, d_out=2, causal=False)
    trace, fig = weights_figure(config)
    weights, tokens = trace.weights[0, 0].numpy(), trace.tokens.texts
    summary = describe(fig)["summary"]
    assert "heatmap, 64 × 64" in describe(fig)["name"]
    r, c = np.unravel_index(weights.argmax(), weights.shape)
    assert f"in row {tokens[r]}, column {tokens[c]}." in summary and "Largest in each row" not in summary


def test_masked_cells_never_count_as_the_largest():
    trace = run(BOOK)
    panel = [p for p in figures.step_panels(trace, 0) if p.name == "masked_scores"][0]
    summary = describe(figures.step_figure(trace.tokens.texts, panel))["summary"]
    scores = trace.masked_scores[0, 0].numpy()
    r, c = np.unravel_index(np.where(np.isfinite(scores), scores, -np.inf).argmax(), scores.shape)
    assert c <= r and f"row {trace.tokens.texts[r]}, column {trace.tokens.texts[c]}" in summary


def test_a_grid_of_heads_names_the_head_with_the_largest_weight_read_back_from_its_bytes():
    trace = run(ExplorerConfig(heads=4, d_out=8, causal=False))
    weights = trace.weights[0].numpy()
    described = describe(figures.heads_grid(weights))
    top = int(np.argmax(weights.reshape(4, -1).max(axis=1)))
    assert "4 heatmaps, each 6 × 6" in described["name"]
    assert f"{round(float(weights.max()), 2):.4g}, is in head {top}." in described["summary"]


def test_bars_say_the_highest_and_the_lowest():
    fig = answer_bars(["6", "3", "12"], [[4, 1, 9]], ["vote 1"], None)
    assert describe(fig)["summary"].endswith("Highest: 12 (9); lowest: 3 (1).")
    assert "bar chart" in describe(fig)["name"]


def test_a_long_option_is_wrapped_on_spaces_and_keeps_every_word():
    """A phone's histogram is ~340 px wide, and plotly cuts a label its margin cannot hold: an
    option is wrapped at LINE columns (a wide character takes two), at spaces, never inside a
    word or at a hyphen (Japanese, which writes no spaces, between any two characters), and the
    text a screen reader's table reads keeps every word and space."""
    options = [
        "6: по одному на слово словника",
        "3: self-attention weights per token",
        "3: 埋め込みの次元ごとに1行ずつあるので長い説明になります",
        "3: 임베딩 차원마다 한 행씩",
        "6",
    ]
    fig = answer_bars(options, [[1, 2, 0, 0, 0]], ["vote 1"], 1).to_dict()
    shown = [re.sub(r"<(?!br>)[^>]+>", "", y).removeprefix("✓ ") for y in fig["data"][0]["y"]]
    assert [y.replace("<br>", "") for y in shown] == options  # every word and space, nothing added
    lines = [line for y in shown for line in y.split("<br>")]
    assert max(_width(line.rstrip()) for line in lines) <= LINE
    assert [len(y.split("<br>")) for y in shown] == [2, 2, 3, 2, 1]
    words = {w for o in options[:2] + options[3:] for w in o.split()}
    assert all(w in words for line in lines[:4] + lines[7:] for w in line.split())  # no word broken
    summary = describe(answer_bars(options[:1], [[1]], ["v"], None))["summary"]
    assert "6: по одному на слово с" in summary and "<br>" not in summary  # the space kept


def test_curves_say_where_they_start_end_and_turn():
    fig = training_curves([2.5, 1.0, 0.25, 0.5], [(1, 0.1), (3, 0.9)], 3)
    summary = describe(fig)["summary"]
    assert "From 2.5 to 0.5; lowest 0.25, highest 2.5." in summary
    assert "line chart" in describe(fig)["name"]


def test_the_words_are_the_sessions_language():
    i18n.use("uk")
    trace, fig = weights_figure()
    described = describe(fig)
    assert "heatmap" not in described["name"] and "Largest" not in described["summary"]
