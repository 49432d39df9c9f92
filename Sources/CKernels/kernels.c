#include "CKernels.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

// Every product is rounded before its sum, whatever the compiler would fuse.
#pragma STDC FP_CONTRACT OFF

enum { block_rows = 4, tile_columns = 16 };

/// Every element of c, one term at a time.
static void scalar_product(const float *a, const float *b, float *c, int m, int n, int k, struct fp_product o) {
    for (int i = 0; i < m; i++) {
        float *row = c + (long)i * n;
        if (o.biases) for (int j = 0; j < n; j++) row[j] = o.biases[i];
        for (int p = 0; p < k; p++) {
            const float x = a[(long)i * k + p];
            if (x == 0) continue;
            if (!o.tiled) {
                const float *source = b + (long)p * n;
                for (int j = 0; j < n; j++) row[j] = row[j] + x * source[j];
                continue;
            }
            for (int column = 0; column < n; column += tile_columns) {
                const float *source = b + ((long)(column / tile_columns) * k + p) * tile_columns;
                const int width = n - column < tile_columns ? n - column : tile_columns;
                for (int j = 0; j < width; j++) row[column + j] = row[column + j] + x * source[j];
            }
        }
        if (o.relu) for (int j = 0; j < n; j++) row[j] = row[j] < 0 ? 0 : row[j];
    }
}

/// `rows` (at most 4) rows of c from `first`, the `width` (at most 16) columns from `column`, held in registers
/// while every term is added; `tile` is those columns of b, packed ([k][16], zeros past `width`); `dense[p]`:
/// no row's factor p is zero (then no branch per row). The lanes past `width` are neither read nor written in c.
__attribute__((always_inline, target("avx2"))) static inline void block(const float *a, const float *tile, const unsigned char *dense,
                                                                       float *c, int n, int k, int first, int rows, int column, int width,
                                                                       struct fp_product o) {
    // Masked loads and stores for a narrow tile alone: a masked store is microcoded, and slow, on some processors.
    const int narrow = width < tile_columns;
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i in_low = _mm256_cmpgt_epi32(_mm256_set1_epi32(width), lanes);
    const __m256i in_high = _mm256_cmpgt_epi32(_mm256_set1_epi32(width - 8), lanes);
    const float *w[block_rows];
    __m256 low[block_rows], high[block_rows];
    for (int r = 0; r < block_rows; r++) {
        w[r] = a + (long)(first + (r < rows ? r : 0)) * k;
        float *at = c + (long)(first + r) * n + column;
        if (r >= rows) {
            low[r] = high[r] = _mm256_setzero_ps();
        } else if (o.biases) {
            low[r] = high[r] = _mm256_set1_ps(o.biases[first + r]);
        } else {
            low[r] = narrow ? _mm256_maskload_ps(at, in_low) : _mm256_loadu_ps(at);
            high[r] = narrow ? _mm256_maskload_ps(at + 8, in_high) : _mm256_loadu_ps(at + 8);
        }
    }
    for (int p = 0; p < k; p++) {
        const __m256 b0 = _mm256_loadu_ps(tile + p * tile_columns), b1 = _mm256_loadu_ps(tile + p * tile_columns + 8);
        for (int r = 0; r < rows; r++) {
            if (!dense[p] && w[r][p] == 0) continue;
            const __m256 x = _mm256_broadcast_ss(w[r] + p);
            low[r] = _mm256_add_ps(low[r], _mm256_mul_ps(x, b0));
            high[r] = _mm256_add_ps(high[r], _mm256_mul_ps(x, b1));
        }
    }
    for (int r = 0; r < rows; r++) {
        float *at = c + (long)(first + r) * n + column;
        if (o.relu) {  // below zero becomes 0; -0 and NaN stay, as the scalar kernel's select keeps them
            const __m256 zero = _mm256_setzero_ps();
            low[r] = _mm256_andnot_ps(_mm256_cmp_ps(low[r], zero, _CMP_LT_OQ), low[r]);
            high[r] = _mm256_andnot_ps(_mm256_cmp_ps(high[r], zero, _CMP_LT_OQ), high[r]);
        }
        if (narrow) {
            _mm256_maskstore_ps(at, in_low, low[r]);
            _mm256_maskstore_ps(at + 8, in_high, high[r]);
        } else {
            _mm256_storeu_ps(at, low[r]);
            _mm256_storeu_ps(at + 8, high[r]);
        }
    }
}

/// b's `width` (at most 16) columns from `column`, [k][16], zeros past `width` (no stale value, a subnormal is slow,
/// in the lanes never stored).
static void pack(const float *b, float *tile, int n, int k, int column, int width) {
    for (int p = 0; p < k; p++) {
        memcpy(tile + p * tile_columns, b + (long)p * n + column, sizeof(float) * width);
        memset(tile + p * tile_columns + width, 0, sizeof(float) * (tile_columns - width));
    }
}

/// Every column tile of 16, the last one perhaps narrower: b's tile packed once (or given packed, `tiled`), so every
/// block of rows reads it from cache in order.
__attribute__((target("avx2"))) static void vector_product(const float *a, const float *b, float *c, int m, int n, int k, struct fp_product o) {
    const int blocks = (m + block_rows - 1) / block_rows, full = m / block_rows;
    unsigned char *dense = malloc((size_t)blocks * k);
    float *packed = o.tiled ? NULL : malloc(sizeof(float) * tile_columns * (size_t)k);
    // Row by row, each along k (a loop the compiler vectorises): column by column, this took longer than the
    // products of a layer with few columns.
    memset(dense, 1, (size_t)blocks * k);
    for (int i = 0; i < m; i++) {
        unsigned char *all = dense + (long)(i / block_rows) * k;
        const float *row = a + (long)i * k;
        for (int p = 0; p < k; p++) all[p] &= row[p] != 0;
    }
    for (int column = 0; column < n; column += tile_columns) {
        const int width = n - column < tile_columns ? n - column : tile_columns;
        const float *tile = o.tiled ? b + (long)(column / tile_columns) * k * tile_columns : packed;
        if (!o.tiled) pack(b, packed, n, k, column, width);
        for (int q = 0; q < full; q++) block(a, tile, dense + (long)q * k, c, n, k, q * block_rows, block_rows, column, width, o);
        if (full < blocks) block(a, tile, dense + (long)full * k, c, n, k, full * block_rows, m - full * block_rows, column, width, o);
    }
    free(packed);
    free(dense);
}

void fp_multiply_add(const float *a, const float *b, float *c, int m, int n, int k, struct fp_product options) {
    if (options.scalar || !__builtin_cpu_supports("avx2")) scalar_product(a, b, c, m, n, k, options);
    else vector_product(a, b, c, m, n, k, options);
}
