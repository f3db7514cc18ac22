#pragma once

#include "core/format/dtype.h"

namespace stb {

// Where a histogram's equal-width bins lie: `bins` bins over [lo, hi].
struct BinLayout {
    double lo = 0;
    double hi = 0;
    unsigned bins = 0;
    bool operator==(const BinLayout &) const = default;
};

// The bins for values of `dtype` spanning [min, max] (finite, min < max) when `requested` (>= 1)
// are asked for. Values that lie on a grid are binned on it, so every bin holds as many
// representable values as its neighbours and the histogram shows the data, not the grid:
// - integer dtypes and BOOL: edges at k - 0.5, each bin a whole number of integers, one bin per
//   value when the range holds at most `requested` values (I8 over -128..127 in 10 bins: ten bins
//   of 26 integers from -128.5; U8 0..9 in 64 bins: ten bins, one per value);
// - floats of at most 16 bits (F16, BF16, the 8-, 6- and 4-bit floats): the grid step is the gap
//   between the two largest representable magnitudes in the range (the coarsest spacing there),
//   edges halfway between grid points, each bin a whole number of steps. So there are never
//   more bins than representable values in the range, and no comb of empty bins between them.
// Either way there may be fewer bins than requested, and [lo, hi] reaches half a step beyond
// [min, max] (a bin's width past max when the steps do not divide evenly). Wider floats (F32,
// F64, C64 magnitudes) and integer ranges beyond 2^52 keep numpy's bins: [min, max] in
// `requested` bins.
BinLayout layoutBins(DType dtype, double min, double max, unsigned requested);

// The grid step layoutBins uses for that range: 1 for integers, the coarsest gap between
// representable values in [min, max] for narrow floats, 0 where values are not binned on a grid.
double gridStep(DType dtype, double min, double max);

} // namespace stb
