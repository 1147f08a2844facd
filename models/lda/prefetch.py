"""Software prefetch for the LDA kernels: LLVM's ``llvm.prefetch`` as numba intrinsics.

A collapsed Gibbs sweep reads, for every token, the rows of its word in the per-word
tables (``word_topic``, the SparseLDA word lists, ``beta``). On a corpus with a large
vocabulary those tables do not fit in cache and the word of each token is, in text
order, a random row: the sweep waits on memory. The word of token ``i + distance`` is
known long before the sweep gets there, so the kernel can ask for its rows early; the
reads then overlap the arithmetic of the tokens in between. This is the standard
software-prefetching pattern for indirect accesses (Ainsworth & Jones, "Software
prefetching for indirect memory accesses", CGO 2017: prefetch the index array twice as
far ahead as the indexed one).

A prefetch is a hint: it changes no value and never faults (an address past the end of
an array is not an error for the instruction), so a kernel with prefetches draws
exactly what it draws without them. numba exposes no prefetch, hence these intrinsics;
they lower to ``llvm.prefetch(ptr, rw=0 read, locality=3 keep in all cache levels,
cache=1 data)``.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = ["PREFETCH_DISTANCE", "prefetch_cell", "prefetch_item"]

#: How many tokens ahead the kernels ask for what a token will read (the SparseLDA sweep
#: asks for a word's offsets twice as far ahead): 4, 8 and 16 measured alike on the Zipf
#: corpus at K = 20.
PREFETCH_DISTANCE = 8


def _emit_prefetch(context, builder, array_type, array, indices):
    # Address of array[indices] (no bounds check, no wraparound: a hint may point past
    # the end), then one call of the intrinsic on it.
    data = context.make_array(array_type)(context, builder, array)
    pointer = cgutils.get_item_pointer(
        context, builder, array_type, data, indices, wraparound=False
    )
    byte_pointer = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    signature = ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32])
    function = cgutils.get_or_insert_function(builder.module, signature, "llvm.prefetch.p0")
    builder.call(function, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])


@intrinsic
def prefetch_item(typingctx, array, index):
    """Ask for the cache line holding ``array[index]`` (1-D array, integer index)."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None
    if not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type, index_type = signature.args
        position = context.cast(builder, args[1], index_type, types.intp)
        _emit_prefetch(context, builder, array_type, args[0], [position])
        return context.get_dummy_value()

    return types.void(array, index), codegen


@intrinsic
def prefetch_cell(typingctx, array, row, column):
    """Ask for the cache line holding ``array[row, column]`` (2-D array, integer indices)."""
    if not (isinstance(array, types.Array) and array.ndim == 2):
        return None
    if not (isinstance(row, types.Integer) and isinstance(column, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_type, row_type, column_type = signature.args
        position = [
            context.cast(builder, args[1], row_type, types.intp),
            context.cast(builder, args[2], column_type, types.intp),
        ]
        _emit_prefetch(context, builder, array_type, args[0], position)
        return context.get_dummy_value()

    return types.void(array, row, column), codegen
