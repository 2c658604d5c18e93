import numpy as np
import pytest

from attention import bench
from attention.explorer import ExplorerConfig, run
from tests.app.conftest import figures, open_page, session
from tests.specs import decode


@pytest.fixture
def compare():
    return open_page("pages/compare.py")


def panels(at) -> dict[str, dict]:
    """Compare's charts by their heatmap's name: A, B and A − B."""
    return {f["data"][0]["name"]: f for f in figures(at) if f["data"][0].get("name") in ("A", "B", "A − B")}


def comparison(at) -> dict:
    return {name: decode(fig["data"][0]["z"]) for name, fig in panels(at).items()}


def headline(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**max |A − B|"))


def pick(at, example: str):
    return at.button_group(key="cmp_example").set_value(example).run()


def test_opens_on_causal_off_against_on(compare):
    assert not compare.exception
    panels = comparison(compare)
    a, b, diff = panels["A"], panels["B"], panels["A − B"]
    upper = np.triu(np.ones_like(a, dtype=bool), 1)
    assert (a[upper] > 0).all() and (b[upper] == 0).all()  # B's mask zeroes the future
    np.testing.assert_allclose(a.sum(1), 1, atol=1e-6)
    np.testing.assert_array_equal(diff, a - b)
    # the numbers are the engine's: B is the Explorer's default, which has a causal mask
    expected = run(ExplorerConfig()).weights[0, 0].numpy()
    np.testing.assert_array_equal(b, expected)
    assert float(headline(compare).split("= ")[1].split("*")[0]) == pytest.approx(
        np.abs(diff).max(), rel=1e-5
    )


@pytest.mark.parametrize(
    "example, step, differs",
    [
        ("two seeds", "weights", True),
        ("v1 vs v2, same seed", "weights", True),
        ("dropout off vs 0.5", "dropped_weights", True),
        ("2 heads vs 4", "weights", True),
    ],
)
def test_examples_set_both_sides_and_the_telling_step(compare, example, step, differs):
    at = pick(compare, example)
    assert not at.exception and not at.error
    assert at.session_state["cmp_what"] == step
    assert ("identical" not in headline(at)) == differs


def test_dropout_changes_dropped_weights_but_not_weights(compare):
    at = pick(compare, "dropout off vs 0.5")
    assert at.session_state["cmp_b_dropout"] == 0.5
    at.selectbox(key="cmp_what").set_value("weights").run()
    assert "identical" in headline(at)


def test_shapes_that_differ_are_shown_without_a_difference(compare):
    at = pick(compare, "2 heads vs 4")
    at.selectbox(key="cmp_what").set_value("context").run()  # head_dim 4 vs 2
    assert "no difference to take" in at.info[0].value
    assert set(comparison(at)) == {"A", "B"}
    at.selectbox(key="cmp_head_b").set_value(3).run()
    assert not at.exception


def test_impossible_side_settings_are_repaired_with_a_note(compare):
    compare.number_input(key="cmp_a_d_out").set_value(4).run()
    at = compare.number_input(key="cmp_a_heads").set_value(3).run()
    assert not at.exception
    assert any("not divisible by num_heads=3" in t.value for t in at.text)


def test_sentence_comes_from_the_explorer():
    at = session()
    at.query_params["text"] = "the cat sat on the mat"
    at.query_params["embedding"] = "random"
    at.run()
    at.switch_page("pages/compare.py").run()
    assert at.text_input(key="cmp_text").value == "the cat sat on the mat"
    assert len(comparison(at)["A"]) == 6
    at.text_input(key="cmp_text").set_value("").run()  # empty: both sides fall back alike
    assert not at.exception and len(comparison(at)["A"]) > 0


def test_variant_table_every_row_matches(compare):
    assert "Every variant matches the reference" in compare.success[0].value
    table = compare.table[0].value
    assert len(table) == len(bench.IMPLEMENTATIONS) and (table["largest difference"] < 1e-5).all()
    assert {"GroupedQueryAttention", "OnlineSoftmaxAttention"} <= set(table["variant"])
    at = compare.number_input(key="cmp_table_d").set_value(6).run()
    assert at.selectbox(key="cmp_table_heads").options == ["1", "2", "3", "6"]
    assert not at.exception and "Every variant matches" in at.success[0].value


# --- one colour scale, hatched masks, labels said once --------------------------------------------


def test_a_and_b_share_one_colour_scale(compare):
    """The dropout example showed A on 0..1 and B on 0..2."""
    charts = panels(pick(compare, "dropout off vs 0.5"))
    a, b = charts["A"]["data"][0], charts["B"]["data"][0]
    assert (a["zmin"], a["zmax"]) == (b["zmin"], b["zmax"]) and a["zmax"] >= 2  # kept weights x2


def test_the_difference_is_symmetric_and_can_be_fixed_to_a_and_bs_range(compare):
    at = pick(compare, "two seeds")
    diff = panels(at)["A − B"]["data"][0]
    assert diff["zmin"] == -diff["zmax"] and diff["zmax"] == panels(at)["B"]["data"][0]["zmax"]  # fixed: 0..1
    at = at.toggle(key="cmp_fixed").set_value(False).run()
    diff = panels(at)["A − B"]["data"][0]
    largest = float(np.nanmax(np.abs(comparison(at)["A − B"])))
    assert diff["zmax"] == pytest.approx(largest, rel=1e-6) and largest < 1


def test_masked_cells_are_hatched(compare):
    charts = panels(compare)  # causal off (A) vs on (B)
    assert [d["name"] for d in charts["B"]["data"]] == ["B", "masked"]
    assert [d["name"] for d in charts["A"]["data"]] == ["A"]


def test_two_heads_against_four_differ_visibly(compare):
    at = pick(compare, "2 heads vs 4")
    both = comparison(at)
    assert np.nanmax(np.abs(both["A − B"])) > 0.1 * np.nanmax(both["A"])  # not a 1% difference


def test_labels_say_each_thing_once(compare):
    options = compare.selectbox(key="cmp_what").options
    assert "weights: softmax output, rows sum to 1" in options
    assert not any("(weight)" in o for o in options)


def test_compare_opens_on_the_weights():
    at = open_page("pages/compare.py")
    assert not at.exception and at.selectbox(key="cmp_what").value == "weights"
