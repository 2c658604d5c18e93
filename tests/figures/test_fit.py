"""figures/fit.py: titles wrapped to a chart's width (in any script), and clear of plotly's toolbar."""

from attention.figures.fit import TOOLBAR_PX, fit, text_px, wrap
from attention.figures.layout import chart_title, figure, title


def test_wrap_breaks_at_spaces_and_keeps_tags_whole():
    text = "<b>Zmiana straty po wyłączeniu jednej głowy (naty)</b>"
    wrapped = wrap(text, 300, 15)
    assert wrapped == "<b>Zmiana straty po wyłączeniu jednej<br>głowy (naty)</b>"
    assert all(text_px(line, 15) <= 300 for line in wrapped.split("<br>"))
    assert wrap(text, 2000, 15) == text  # what fits is left alone


def test_wrap_breaks_between_wide_characters_but_not_before_closing_punctuation():
    text = "1つの文、6つの言語：GPT-2 のトークン数とAttentionのセル数"
    lines = wrap(text, 100, 15).split("<br>")
    assert len(lines) > 3 and "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert not any(line.startswith(("、", "：", "ー")) for line in lines)


def test_a_word_longer_than_the_line_stands_alone():
    assert wrap("a Donaudampfschifffahrtsgesellschaft b", 60, 14).split("<br>") == [
        "a",
        "Donaudampfschifffahrtsgesellschaft",
        "b",
    ]


def bars(chart_title_: dict, **layout) -> object:
    return figure([{"type": "bar", "x": [1], "y": [1]}], {"title": chart_title_, **layout})


def test_a_short_title_on_a_screen_is_left_as_it_was():
    fig = bars(title("Next token"), height=300, margin={"t": 50, "b": 10, "l": 10, "r": 10})
    before = fig.layout.to_plotly_json()
    fit(fig, 900)
    assert fig.layout.to_plotly_json() == before


def test_on_a_phone_the_title_goes_under_a_strip_for_the_toolbar_and_wraps():
    long = "Verliesverandering wanneer een kop op 'n slag uitgeskakel word (nats)"
    fig = bars(title(long, size=14), height=300, margin={"t": 50, "b": 10, "l": 10, "r": 10})
    fit(fig, 360)
    shown = fig.layout.title
    assert "<br>" in shown.text and shown.yanchor == "top" and shown.pad.t >= TOOLBAR_PX
    assert fig.layout.margin.t >= 50 + TOOLBAR_PX + 14  # the strip and the added line
    assert fig.layout.height == 300 + (fig.layout.margin.t - 50)  # the plot keeps its height


def test_a_subtitle_wraps_too_and_an_axis_title_gets_automargin():
    fig = bars(
        chart_title(
            "weights = softmax(masked_scores)",
            "weights (1, 2, 7, 7), głowa 0: a subtitle too long for a phone",
        ),
        height=400,
        margin={"t": 80, "b": 10, "l": 10, "r": 40},
        xaxis={"title": {"text": "token (szare: powtórzone, podpowiada je wcześniejsza kopia)"}},
    )
    fit(fig, 360)
    assert "<br>" in fig.layout.title.subtitle.text
    assert "<br>" in fig.layout.xaxis.title.text and fig.layout.xaxis.automargin is True


def test_a_panel_title_at_the_top_right_gets_the_strip_too():
    """A grid's last panel's title (an annotation over its plot area) stood under the toolbar."""
    layout = {"height": 300, "margin": {"t": 40, "b": 10, "l": 10, "r": 10}}
    note = {"text": "<b>previous-token head</b>", "xref": "paper", "yref": "paper", "y": 1}
    fig = figure([], layout | {"annotations": [note | {"x": 0.82, "xanchor": "left"}]})
    fit(fig, 1100)
    assert fig.layout.margin.t == 40 + TOOLBAR_PX and fig.layout.height == 300 + TOOLBAR_PX
    left = figure([], layout | {"annotations": [note | {"x": 0.0, "xanchor": "left"}]})
    fit(left, 1100)
    assert left.layout.margin.t == 40  # at the left, clear of the toolbar: as it was


def test_a_keys_axis_title_on_top_of_a_narrow_chart_gets_the_strip():
    """Learn's matrices side by side (445 px): the keys' title, centred on top, reached the toolbar."""
    layout = {"height": 460, "margin": {"t": 110, "b": 10, "l": 10, "r": 40}}
    keys = {"side": "top", "title": {"text": "키 (참조되는 쪽) →"}}
    narrow, wide = figure([], layout | {"xaxis": keys}), figure([], layout | {"xaxis": keys})
    fit(narrow, 445)
    fit(wide, 960)
    assert narrow.layout.margin.t == 110 + TOOLBAR_PX and wide.layout.margin.t == 110
