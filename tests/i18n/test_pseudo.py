"""Every page under the pseudo language (each message wrapped in «»): prose outside the marks is
a string written without the catalogs. Run it to find what is left to mark."""

import pytest

from tests.i18n.prose import leftovers
from tests.i18n.walk import PAGES, views


@pytest.mark.parametrize("page", PAGES)
def test_every_prose_string_goes_through_the_catalogs(page):
    for name, at in views(page, "pseudo"):
        assert not at.exception, f"{name}: {at.exception}"
        left = leftovers(at)
        assert not left, f"{name}: {len(left)} prose strings outside the catalogs:\n" + "\n".join(left[:80])
