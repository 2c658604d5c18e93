import pytest

from attention import i18n


@pytest.fixture(autouse=True)
def english_after():
    """A test that speaks another language on this thread (walk.opened) leaves it English."""
    yield
    i18n.use(i18n.DEFAULT)
