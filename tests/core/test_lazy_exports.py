"""Names imported on first use: found, kept, and an unknown name refused."""

import pytest

from zoo.core.lazy_exports import lazy_getattr


def test_a_name_is_imported_on_first_use_and_kept():
    package = {"__name__": "pkg"}
    getattr_ = lazy_getattr(package, {"sqrt": "math"})
    import math

    assert getattr_("sqrt") is math.sqrt
    assert package["sqrt"] is math.sqrt


def test_an_unknown_name_is_an_attribute_error_naming_the_package():
    getattr_ = lazy_getattr({"__name__": "pkg"}, {"sqrt": "math"})
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'cbrt'"):
        getattr_("cbrt")
