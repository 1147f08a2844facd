"""Uniforms for the LDA kernels: NumPy's PCG64 stream, stepped inline in numba.

The kernels draw one to four uniforms per token. Inside numba, ``rng.random()`` on a
``numpy.random.Generator`` is an indirect call into the bit generator's C function
``next_double``, which the compiler cannot see through. For the generator NumPy gives
by default, PCG64, this module steps the same generator inline instead, **the same
numbers bit for bit** (tested against ``Generator.random``), and writes the generator's
state back afterwards, so the caller's ``rng`` ends exactly where ``rng.random()``
calls would have left it. One draw at a time, the two cost about the same (1.5 against
1.6 ns a draw, ``bench/lda_uniforms.py``); a run of draws (:func:`fill_uniforms`) steps
four states at once from one (the k-step jump of the LCG), 0.90 against 1.72 ns a draw
(1.34 stepping one at a time), which made the Metropolis-Hastings sweep 2-3% faster
(Zipf, K = 20; the same numbers). Inside the SparseLDA sweep, where the opaque call
also pins registers around it, the inline step made the sweep 7% faster at K = 20 and
6% at K = 100 on Reuters (38.0 to 40.8 and 26.2 to 27.7 million tokens per CPU second,
the same draws; two alternating runs of ``bench/lda_speed.py --corpus reuters --topics
20 100 --contenders zoo`` on the code before and after).

PCG64 (O'Neill, "PCG: a family of simple fast space-efficient statistically good
algorithms for random number generation", HMC-CS-2014-0905, 2014; NumPy's
``numpy/random/src/pcg64``) is a 128-bit linear congruential generator
``s <- s * M + inc (mod 2^128)`` whose output is the XSL-RR permutation of the new
state, ``rotr64(hi(s) xor lo(s), hi(s) >> 58)``; NumPy turns a 64-bit output ``x`` into
the double ``(x >> 11) * 2^-53``. numba has no 128-bit integer, so the step is an
intrinsic in LLVM's ``i128`` (a ``mulx`` and two ``imul`` on x86-64). ``k`` steps at once
are ``s <- s * M^k + inc * (1 + M + ... + M^(k-1))``, another multiply-add.

A kernel calls :func:`uniform` on its ``source``, which is either the caller's
``Generator`` (any bit generator: the portable path, ``source.random()``) or a PCG64
state from :func:`pcg64_state` (a ``uint64`` array ``[state_hi, state_lo, inc_hi,
inc_lo]``, advanced in place); numba compiles one specialisation per kind from the same
kernel source. :func:`uniform_source` hands out the state for a PCG64 generator and
writes it back on exit, and hands out the generator itself otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic, overload

__all__ = ["fill_uniforms", "pcg64_state", "set_pcg64_state", "uniform", "uniform_source"]

# PCG's default 128-bit multiplier (O'Neill 2014; NumPy's PCG_DEFAULT_MULTIPLIER_128).
_MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
_LOW = (1 << 64) - 1
# (x >> 11) * 2^-53: NumPy's 53-bit double from a 64-bit output.
_DOUBLE_UNIT = 1.0 / 9007199254740992.0


def _words(value: int) -> tuple[np.uint64, np.uint64]:
    """The high and low 64-bit words of a 128-bit integer."""
    return np.uint64(value >> 64), np.uint64(value & _LOW)


# M^k mod 2^128 for k = 1 to 4: k steps of the generator in one multiply-add (below).
_M1_HIGH, _M1_LOW = _words(_MULTIPLIER)
_M2_HIGH, _M2_LOW = _words(pow(_MULTIPLIER, 2, 1 << 128))
_M3_HIGH, _M3_LOW = _words(pow(_MULTIPLIER, 3, 1 << 128))
_M4_HIGH, _M4_LOW = _words(pow(_MULTIPLIER, 4, 1 << 128))


@intrinsic
def _multiply_add(typingctx, a_hi, a_lo, m_hi, m_lo, c_hi, c_lo):
    """``(high, low)`` of ``a * m + c`` mod 2^128, each operand as two 64-bit words."""
    words = (a_hi, a_lo, m_hi, m_lo, c_hi, c_lo)
    if not all(isinstance(word, types.Integer) and word.bitwidth == 64 for word in words):
        return None
    signature = types.UniTuple(types.uint64, 2)(*words)

    def codegen(context, builder, signature, args):
        i64, i128 = ir.IntType(64), ir.IntType(128)

        def join(high, low):
            high = builder.shl(builder.zext(high, i128), i128(64))
            return builder.or_(high, builder.zext(low, i128))

        value = builder.add(
            builder.mul(join(args[0], args[1]), join(args[2], args[3])), join(args[4], args[5])
        )
        high = builder.trunc(builder.lshr(value, i128(64)), i64)
        return context.make_tuple(
            builder, signature.return_type, [high, builder.trunc(value, i64)]
        )

    return signature, codegen


@numba.njit(inline="always")
def _double(high, low):
    """NumPy's double from the PCG64 state ``(high, low)``: XSL-RR, then 53 bits."""
    # XSL-RR: xor the halves, rotate right by the top 6 bits of the state.
    folded = high ^ low
    rotation = high >> np.uint64(58)
    output = (folded >> rotation) | (folded << ((np.uint64(64) - rotation) & np.uint64(63)))
    return (output >> np.uint64(11)) * _DOUBLE_UNIT


def uniform(source):  # pragma: no cover - replaced by the overload inside numba
    """A uniform on [0, 1) from ``source`` (a Generator, or a PCG64 state array)."""
    raise TypeError("uniform is for numba-compiled kernels")


@overload(uniform, inline="always")
def _uniform(source):
    if isinstance(source, types.NumPyRandomGeneratorType):

        def from_generator(source):
            return source.random()

        return from_generator
    if isinstance(source, types.Array) and source.ndim == 1 and source.dtype == types.uint64:

        def from_pcg64_state(source):
            high, low = _multiply_add(
                source[0], source[1], _M1_HIGH, _M1_LOW, source[2], source[3]
            )
            source[0] = high
            source[1] = low
            return _double(high, low)

        return from_pcg64_state
    return None


def fill_uniforms(source, out, n):  # pragma: no cover - replaced by the overload
    """Write the next ``n`` uniforms of ``source`` into ``out[:n]``, in order."""
    raise TypeError("fill_uniforms is for numba-compiled kernels")


@overload(fill_uniforms, inline="always")
def _fill_uniforms(source, out, n):
    if isinstance(source, types.NumPyRandomGeneratorType):

        def from_generator(source, out, n):
            for i in range(n):
                out[i] = source.random()

        return from_generator
    if isinstance(source, types.Array) and source.ndim == 1 and source.dtype == types.uint64:

        def from_pcg64_state(source, out, n):
            # The state in locals for the whole run: through the array, each draw would
            # wait for the previous one's store (the stores to `out` may alias it).
            high, low, inc_high, inc_low = source[0], source[1], source[2], source[3]
            # Four draws from one state: k steps are s -> M^k s + c_k with c_1 = inc and
            # c_(k+1) = c_k M + inc, so the four multiply-adds do not wait on each other
            # and only the fourth state carries on (one multiply's latency per four draws
            # instead of four). The same states, so the same numbers.
            c2_high, c2_low = _multiply_add(
                inc_high, inc_low, _M1_HIGH, _M1_LOW, inc_high, inc_low
            )
            c3_high, c3_low = _multiply_add(c2_high, c2_low, _M1_HIGH, _M1_LOW, inc_high, inc_low)
            c4_high, c4_low = _multiply_add(c3_high, c3_low, _M1_HIGH, _M1_LOW, inc_high, inc_low)
            i = 0
            while i + 4 <= n:
                h1, l1 = _multiply_add(high, low, _M1_HIGH, _M1_LOW, inc_high, inc_low)
                h2, l2 = _multiply_add(high, low, _M2_HIGH, _M2_LOW, c2_high, c2_low)
                h3, l3 = _multiply_add(high, low, _M3_HIGH, _M3_LOW, c3_high, c3_low)
                high, low = _multiply_add(high, low, _M4_HIGH, _M4_LOW, c4_high, c4_low)
                out[i] = _double(h1, l1)
                out[i + 1] = _double(h2, l2)
                out[i + 2] = _double(h3, l3)
                out[i + 3] = _double(high, low)
                i += 4
            while i < n:
                high, low = _multiply_add(high, low, _M1_HIGH, _M1_LOW, inc_high, inc_low)
                out[i] = _double(high, low)
                i += 1
            source[0] = high
            source[1] = low

        return from_pcg64_state
    return None


def pcg64_state(rng: np.random.Generator) -> np.ndarray | None:
    """``[state_hi, state_lo, inc_hi, inc_lo]`` (uint64) of a PCG64 generator, else None."""
    if type(rng.bit_generator) is not np.random.PCG64:
        return None
    pcg = rng.bit_generator.state["state"]
    state, inc = pcg["state"], pcg["inc"]
    return np.array([state >> 64, state & _LOW, inc >> 64, inc & _LOW], dtype=np.uint64)


def set_pcg64_state(rng: np.random.Generator, words: np.ndarray) -> None:
    """Move a PCG64 generator to the state ``words`` (as :func:`pcg64_state` gives it)."""
    full = rng.bit_generator.state
    high, low, inc_high, inc_low = (int(word) for word in words)
    # Only the LCG state moves; the increment and the buffered 32-bit half stay.
    if (inc_high << 64) | inc_low != full["state"]["inc"]:
        raise ValueError("words: the state of another PCG64 stream (its increment differs)")
    full["state"]["state"] = (high << 64) | low
    rng.bit_generator.state = full


@contextmanager
def uniform_source(rng: np.random.Generator) -> Iterator[np.ndarray | np.random.Generator]:
    """The ``source`` to hand a kernel for ``rng``: PCG64's state (written back), or rng."""
    words = pcg64_state(rng)
    if words is None:
        yield rng
        return
    try:
        yield words
    finally:
        set_pcg64_state(rng, words)


@numba.njit(cache=True)
def draw_uniforms(source, n, one_at_a_time):
    """``n`` uniforms from ``source``, by :func:`uniform` or by :func:`fill_uniforms`.

    For the tests and ``bench/lda_uniforms.py``.
    """
    out = np.empty(n)
    if one_at_a_time:
        for i in range(n):
            out[i] = uniform(source)
    else:
        fill_uniforms(source, out, n)
    return out
