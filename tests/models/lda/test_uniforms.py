"""The LDA kernels' uniforms (zoo.models.lda.uniforms): NumPy's own numbers, stepped inline."""

from __future__ import annotations

import numpy as np
import pytest

from zoo.models.lda.uniforms import (
    draw_uniforms,
    pcg64_state,
    set_pcg64_state,
    uniform_source,
)


@pytest.mark.parametrize("one_at_a_time", [True, False])
@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_pcg64_state_gives_numpys_numbers_and_leaves_the_generator_where_numpy_would(
    seed, one_at_a_time
):
    rng, twin = np.random.default_rng(seed), np.random.default_rng(seed)
    twin.random()  # a used generator: the buffered half-word must survive the write-back
    rng.random()
    with uniform_source(rng) as source:
        assert source.dtype == np.uint64
        drawn = draw_uniforms(source, 1_001, one_at_a_time)
    np.testing.assert_array_equal(drawn, twin.random(1_001))
    assert rng.bit_generator.state == twin.bit_generator.state
    assert rng.integers(2**62) == twin.integers(2**62)


def test_other_bit_generators_are_drawn_through_the_generator():
    rng = np.random.Generator(np.random.Philox(3))
    twin = np.random.Generator(np.random.Philox(3))
    assert pcg64_state(rng) is None
    with uniform_source(rng) as source:
        assert source is rng
        drawn = draw_uniforms(source, 10, True)
    np.testing.assert_array_equal(drawn, twin.random(10))


def test_a_state_from_another_stream_is_refused():
    words = pcg64_state(np.random.default_rng(1))
    with pytest.raises(ValueError, match="increment"):
        set_pcg64_state(np.random.default_rng(2), words)
