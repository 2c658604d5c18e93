"""The Learn page under AppTest: the documents' numbers, live sums, immediate feedback."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP


@pytest.fixture
def learn():
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/learn.py")
    return at


def text_of(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.code] + [i.value for i in at.info]
    parts += [df.value.to_string() for df in at.dataframe]
    return "\n".join(parts)


def test_journey_reproduces_the_book(learn):
    at = learn.run()
    assert not at.exception
    page = text_of(at)
    assert "0.55·0.43 + 0.87·0.15 + 0.66·0.89 = 0.9544" in page  # a dot product term by term
    assert "0.1385·x(0) + 0.2379·x(1) + 0.2333·x(2) + 0.1240·x(3) + 0.1082·x(4) + 0.1581·x(5)" in page
    assert "context = [0.4419, 0.6515, 0.5683]" in page
    assert "1.2705, 1.8524, 1.8111, 1.0795, 0.5577" in page  # v1 scores, seed 123
    assert "width **2**" in page and "**2,360,064**" in page  # exercises 3.2 and 3.3


def test_hello_shiny_sun_and_the_documents_rounding(learn):
    at = learn.run()
    at = at.radio(key="learn_source").set_value("Hello shiny sun!").run()
    assert not at.exception
    page = text_of(at)
    assert "context = [0.3990, 0.3854, 0.8610]" in page
    assert "[0.3992, 0.3858, 0.8610]" in page  # the page says why the document differs


def test_switching_the_query_changes_the_worked_sums(learn):
    at = learn.run()
    before = text_of(at)
    at = at.selectbox(key="learn_query").set_value(4).run()
    after = text_of(at)
    assert "z(4) = " in after and "z(1) = " not in after
    assert "0.77·0.43 + 0.25·0.15 + 0.10·0.89" in after and before != after


@pytest.mark.parametrize(
    "key, right, wrong",
    [
        ("check_ids", "6", "3"),
        ("check_top", "1: journey", "0: Your"),
        ("check_scale", "goes toward 1", "goes toward 0"),
        ("check_mask", "0", "1 / T"),
        ("check_dropout", "0.4", "0.1"),
        ("check_transpose", "(1, 2, 6, 6)", "(1, 6, 6, 2)"),
    ],
)
def test_self_checks_give_immediate_feedback(learn, key, right, wrong):
    at = learn.run()
    assert not at.success and not at.error
    at = at.radio(key=key).set_value(right).run()
    assert len(at.success) == 1 and at.success[0].value.startswith("Right")
    at = at.radio(key=key).set_value(wrong).run()
    assert len(at.error) == 1 and at.error[0].value.startswith("Not quite")


def test_the_two_masks_agree_and_dropout_averages_to_one(learn):
    at = learn.run()
    page = text_of(at)
    diff = float(page.split("Largest difference: **")[1].split("**")[0])
    assert diff < 1e-6
    sums = page.split("they do: **")[1].split("**")[0].split(", ")
    assert all(abs(float(s) - 1) < 0.1 for s in sums)


def test_own_sentence_and_bad_input(learn):
    at = learn.run()
    at = at.radio(key="learn_source").set_value("my own sentence").run()
    at = at.text_input(key="learn_text").set_value("the cat saw the dog").run()
    assert not at.exception
    assert "nn.Embedding(4, 3)" in text_of(at)
    at = at.text_input(key="learn_text").set_value("   ").run()
    assert not at.exception and "The text is empty" in at.error[0].value


def test_document_001_vocabulary_for_an_own_sentence(learn):
    at = learn.run()
    at = at.radio(key="learn_source").set_value("my own sentence").run()
    at = at.text_input(key="learn_text").set_value("Life is short, eat dessert first").run()
    assert "{'Life': 0, 'dessert': 1, 'eat': 2, 'first': 3, 'is': 4, 'short': 5}" in text_of(at)
    assert len(at.latex) == 6  # a formula for every step
