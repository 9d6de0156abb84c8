// Where the tiled attention kernel finds each operand's heads: the address of a head's row from
// strides (HeadLayout), beside its bf16 copy (Heads, TileRows), and, in the entry points, which
// input holds the heads and at which column and strides, before its buffer is known (HeadPlacement).
#pragma once
#include <cstddef>
#include <cstdint>

#include "autograd/kernels/bfloat16.h"

namespace tf::tiled {

// Where one operand's heads lie in its buffer: row i of head h of batch item b starts at
//   base + b·batch_stride + h·head_stride + i·row_stride        (D values from there on)
// (B, H, T, D), contiguous:                  batch_stride H·T·D, head_stride T·D, row_stride D.
// rows (B, T, W), head h at columns c + h·D:  base + c, batch_stride T·W, head_stride D, row_stride W.
template <class Pointer>
struct HeadLayout {
    Pointer base;
    int64_t batch_stride, head_stride, row_stride;
    Pointer row(int64_t b, int64_t h, int64_t i) const { return base + b * batch_stride + h * head_stride + i * row_stride; }
};

// The heads of one operand of the products, and under bf16 products (matmul_precision.h) the same
// heads rounded to bf16 once, in the same layout: each is multiplied by many tiles, and rounding it
// for every product would be a pass over memory per product, larger than the product's own work
// where bf16 products are fast.
template <class Real>
struct Heads {
    HeadLayout<const Real*> real;
    HeadLayout<const kernels::bfloat16_bits*> rounded;   // used only when Problem::bf16
};

// One tile's rows of an operand, in both forms (see Heads).
template <class Real>
struct TileRows {
    const Real* real;
    const kernels::bfloat16_bits* rounded;
};
template <class Real>
TileRows<Real> rows_of(const Heads<Real>& x, int64_t b, int64_t h, int64_t i) {
    return {x.real.row(b, h, i), x.rounded.base ? x.rounded.row(b, h, i) : nullptr};
}

// Where an operand's heads lie, before its buffer is known: which of the op's inputs holds them
// (or, for the output, none) and the HeadLayout's column and strides.
struct HeadPlacement {
    std::size_t input;
    int64_t column, batch_stride, head_stride, row_stride;
    template <class Pointer>
    HeadLayout<Pointer> in(Pointer base) const { return {base + column, batch_stride, head_stride, row_stride}; }
};

// H heads of D values in a (B, H, rows, D) tensor, and in rows (B, rows, width) from column `column`.
inline HeadPlacement heads_first(std::size_t input, int64_t H, int64_t rows, int64_t D) {
    return {input, 0, H * rows * D, rows * D, D};
}
inline HeadPlacement heads_in_rows(std::size_t input, int64_t rows, int64_t width, int64_t column, int64_t D) {
    return {input, column, rows * width, D, width};
}

struct Placements {
    HeadPlacement Q, K, V, O;   // O's input index is unused: the output (and dO) has its own buffer
};

}  // namespace tf::tiled
