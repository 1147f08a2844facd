"""Every random stream comes from zoo.core.streams: one per purpose, none shared."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from zoo.core import streams
from zoo.validation import CHECKS

#: Every purpose drawn from: the engines' and each check's.
EVERY_PURPOSE = (*streams.PURPOSES, *(check.purpose for check in CHECKS))


def _first_draws(sequence, n=4):
    return tuple(np.random.default_rng(sequence).integers(0, 2**63, size=n))


def test_purposes_and_items_never_share_a_stream():
    seen = {}
    for purpose, index in itertools.product(EVERY_PURPOSE, range(8)):
        draws = _first_draws(streams.item(7, purpose, index))
        assert draws not in seen, f"{purpose}[{index}] repeats {seen.get(draws)}"
        seen[draws] = (purpose, index)
    # Nor does any item coincide with a child the bare root would spawn (the 0.1 scheme).
    for child in np.random.SeedSequence(7).spawn(8):
        assert _first_draws(child) not in seen


def test_the_purposes_drawn_from_are_the_ones_of_0_2():
    # Renaming a purpose changes every draw of its stream (the key is its name's CRC-32);
    # a check added later brings a purpose of its own (0.3: posterior SBC's). The order
    # is the table's and does not matter: a stream is keyed by its name alone.
    assert sorted(EVERY_PURPOSE) == sorted(
        [
            "gibbs-chains",
            "pymc",
            "exact-fits",
            "nuts-fits",
            "sbc-simulations",
            "geweke-chains",
            "invariance-replicates",
            "posterior-sbc",
        ]
    )


def test_an_item_depends_on_seed_purpose_and_index_only():
    alone = streams.item(3, "sbc-simulations", 5)
    among = streams.items(3, "sbc-simulations", 10)[5]
    assert _first_draws(alone) == _first_draws(among)
    assert _first_draws(streams.item(4, "sbc-simulations", 5)) != _first_draws(alone)


def test_a_seed_sequence_root_is_taken_as_it_is():
    root = np.random.SeedSequence(11)
    assert _first_draws(streams.item(root, "pymc", 0)) == _first_draws(streams.item(11, "pymc", 0))


def test_integer_seed_is_32_bit_and_reproducible():
    value = streams.integer(streams.stream(0, "pymc"))
    assert 0 <= value < 2**32
    assert value == streams.integer(streams.stream(0, "pymc"))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: streams.stream(0, "Gibbs chains"), "purpose: lower-case words"),
        (lambda: streams.stream(0, None), "purpose: lower-case words"),
        (lambda: streams.item(0, "pymc", -1), "index: must be an integer >= 0"),
        (lambda: streams.root(-1), "seed: must be an integer >= 0"),
        (lambda: streams.root(1.5), "seed: must be an integer >= 0"),
        (lambda: streams.root(True), "seed: must be an integer >= 0"),
    ],
)
def test_bad_arguments_name_the_field(call, message):
    with pytest.raises(ValueError, match=message):
        call()
