import json

import pytest

from attention.devices import available_devices
from tests.app.conftest import figures, open_page


@pytest.fixture
def scaling():
    return open_page("pages/scaling.py", timeout=120)


def short(at, longest=32, variants=("mha", "sdpa"), d=16):
    at.selectbox(key="scaling_d").set_value(d)
    at.multiselect(key="scaling_variants").set_value(list(variants))
    at.select_slider(key="scaling_longest").set_value(longest)
    return at.run()


def test_page_says_which_devices_and_waits_for_run(scaling):
    assert not scaling.exception
    if "cuda" not in available_devices():
        assert "No CUDA GPU" in scaling.info[0].value
    assert not figures(scaling)
    assert any("Press Run" in c.value for c in scaling.main.caption)


def test_longest_length_is_capped_by_memory(scaling):
    scaling.selectbox(key="scaling_d").set_value(64)
    at = scaling.selectbox(key="scaling_heads").set_value(16).run()
    options = [int(o) for o in at.select_slider(key="scaling_longest").options]
    assert 16 * options[-1] ** 2 * 4 <= 64 * 2**20 < 16 * (2 * options[-1]) ** 2 * 4  # CPU: 64 MiB a matrix


@pytest.mark.slow  # a real sweep in a child process: ~5 s
def test_a_short_sweep_draws_log_log_charts_and_is_kept(scaling):
    at = short(scaling, variants=("mha", "sdpa", "v2"))
    at = at.button(key="scaling_run").click().run()
    assert not at.exception and not at.error
    time_fig, memory_fig = figures(at)
    assert time_fig["layout"]["xaxis"]["type"] == "log" and time_fig["layout"]["yaxis"]["type"] == "log"
    names = [d["name"] for d in time_fig["data"]]
    assert "O(T²) reference slope" in names
    devices = available_devices()
    assert len(names) == 1 + 5 * len(devices)  # mha forward+trace, v2 forward+trace, sdpa forward
    assert any(d["name"].startswith("attention matrix B·H·T²·4") for d in memory_fig["data"])
    table = at.dataframe[0].value
    assert set(table["tokens"]) == {8, 16, 32} and len(table) == 15 * len(devices)
    # kept for every session: a new visitor with the same settings sees it without running
    other = short(open_page("pages/scaling.py"), variants=("mha", "sdpa", "v2"))
    assert "Your sweep" in at.main.caption[0].value  # "earlier" is for others' runs
    assert "by another session" in other.main.caption[0].value and other.button(key="scaling_run").disabled
    assert len(figures(other)) == 2


def short_params() -> dict:
    """The settings short() sweeps with (the key its kept and partial results are stored under)."""
    return {
        "tokens": [8, 16],
        "variants": ["mha", "sdpa"],
        "devices": available_devices(),
        "modes": ["forward", "trace"],
        "d": 16,
        "heads": 4,
        "causal": True,
    }


def measured_row(**changes) -> dict:
    """One row of the sweep's output (T = 8, MultiHeadAttention forward on the CPU), with `changes`."""
    return {
        "variant": "mha",
        "module": "MultiHeadAttention (3.6.2)",
        "mode": "forward",
        "device": "cpu",
        "tokens": 8,
        "heads": 4,
        "d": 16,
        "ms": 0.1,
        "peak_bytes": 4096,
        "attention_bytes": 1024,
    } | changes


def test_a_stopped_sweep_shows_what_finished(scaling):
    at = short(scaling, longest=16)
    params = short_params()
    row = measured_row(peak_bytes=4096)
    at.session_state["scaling_partial"] = (json.dumps(params, sort_keys=True), [row])
    at = at.run()
    assert "Stopped after 1 measurement;" in at.warning[0].value
    assert len(figures(at)) == 2


def test_nothing_to_measure_is_explained(scaling):
    at = scaling.multiselect(key="scaling_modes").set_value([]).run()
    assert "Pick at least one" in at.warning[0].value and not at.exception


def shown_table(at):
    """The summary table as the learner reads it (the Styler's display strings)."""
    import pyarrow as pa

    return pa.ipc.open_stream(at.dataframe[0].proto.arrow_data.styler.display_values).read_all().to_pandas()


def test_missing_numbers_are_dashes_and_exponents_are_explained(scaling):
    """Never "None"; exponents above 2 explained; no Stop while nothing runs."""
    at = short(scaling, longest=16)
    assert "scaling_stop" not in [b.key for b in at.button]
    params = short_params()
    row = measured_row(module="M", peak_bytes=None)
    at.session_state["scaling_partial"] = (json.dumps(params, sort_keys=True), [row])
    at = at.run()
    table = shown_table(at)
    assert table["time exponent"].tolist() == ["—"] and table["peak MiB"].tolist() == ["—"]
    assert not table.isin(["None", "nan"]).any().any()
    # the browser draws a missing number as "None" whatever the Styler says: the data is the dash too
    data = at.dataframe[0].value
    assert data["time exponent"].tolist() == ["—"] and data["peak MiB"].tolist() == ["—"]
    assert not data.isna().any().any()
    assert any("Above 2 is noise or a cache effect" in c.value for c in at.main.caption)


def test_a_peak_below_the_resolution_is_not_shown_as_zero(scaling):
    """SDPA at T = 8 fits in pages the process already held: a measured rise of 0 bytes is below
    one 4 KiB page, and the page says "< 0.0039 MiB" (and why), never 0."""
    at = short(scaling, longest=16)
    small = measured_row(variant="sdpa", module="S", peak_bytes=0, attention_bytes=1024)
    rows = [small, measured_row(module="M", tokens=16, peak_bytes=8192, attention_bytes=4096)]
    rows.append(measured_row(variant="sdpa", module="S", tokens=16, peak_bytes=0, attention_bytes=4096))
    at.session_state["scaling_partial"] = (json.dumps(short_params(), sort_keys=True), rows)
    at = at.run()
    data = at.dataframe[0].value.set_index(["variant", "tokens"])
    sdpa = data.loc[("F.scaled_dot_product_attention", 8)]
    assert sdpa["peak MiB"] == "< 0.0039" and sdpa["peak / attention"] == "< 4"
    assert data.loc[("MultiHeadAttention", 16), "peak MiB"] == "0.00781"
    said = "\n".join(m.value for m in at.markdown)
    # the module named by its variant (sdpa), in the reader's language, not as the row spelled it ("S")
    sdpa_said = "**F.scaled_dot_product_attention · forward** on cpu peaked at < 0.0039 MiB = < 1 ×"
    assert sdpa_said in said and "peaked at 0 " not in said
    assert any("shows as < 0.0039 MiB (one page)" in c.value for c in at.main.caption)


def test_variant_chips_are_short_names():
    from attention import bench

    assert max(len(i.short) for i in bench.IMPLEMENTATIONS.values()) <= 30
    assert bench.IMPLEMENTATIONS["mha"].short == "MultiHeadAttention"
