#include "CKernels.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

// Every product is rounded before its sum, whatever the compiler would fuse.
#pragma STDC FP_CONTRACT OFF

/// Every element of c, one term at a time.
static void scalar_product(const float *a, const float *b, float *c, int m, int n, int k) {
    for (int i = 0; i < m; i++) {
        float *row = c + (long)i * n;
        for (int p = 0; p < k; p++) {
            const float x = a[(long)i * k + p];
            if (x == 0) continue;
            const float *source = b + (long)p * n;
            for (int j = 0; j < n; j++) row[j] = row[j] + x * source[j];
        }
    }
}

enum { block_rows = 4, tile_columns = 16 };

/// `rows` (at most 4) rows of c from `first`, the `width` (at most 16) columns from `column`, held in registers
/// while every term is added; `tile` is those columns of b, packed ([k][16], zeros past `width`); `dense[p]`:
/// no row's factor p is zero (then no branch per row). The lanes past `width` are neither read nor written in c.
__attribute__((always_inline, target("avx2"))) static inline void block(const float *a, const float *tile, const unsigned char *dense,
                                                                       float *c, int n, int k, int first, int rows, int column, int width) {
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
        low[r] = r >= rows ? _mm256_setzero_ps() : narrow ? _mm256_maskload_ps(at, in_low) : _mm256_loadu_ps(at);
        high[r] = r >= rows ? _mm256_setzero_ps() : narrow ? _mm256_maskload_ps(at + 8, in_high) : _mm256_loadu_ps(at + 8);
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
        if (narrow) {
            _mm256_maskstore_ps(at, in_low, low[r]);
            _mm256_maskstore_ps(at + 8, in_high, high[r]);
        } else {
            _mm256_storeu_ps(at, low[r]);
            _mm256_storeu_ps(at + 8, high[r]);
        }
    }
}

/// Every column tile of 16, the last one perhaps narrower: b's tile packed once, so every block of rows reads
/// it from cache in order.
__attribute__((target("avx2"))) static void vector_product(const float *a, const float *b, float *c, int m, int n, int k) {
    const int blocks = (m + block_rows - 1) / block_rows, full = m / block_rows;
    unsigned char *dense = malloc((size_t)blocks * k);
    float *tile = malloc(sizeof(float) * tile_columns * (size_t)k);
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
        for (int p = 0; p < k; p++) {  // zeros past `width`: no stale value (a subnormal is slow) in the lanes never stored
            memcpy(tile + p * tile_columns, b + (long)p * n + column, sizeof(float) * width);
            memset(tile + p * tile_columns + width, 0, sizeof(float) * (tile_columns - width));
        }
        for (int q = 0; q < full; q++) block(a, tile, dense + (long)q * k, c, n, k, q * block_rows, block_rows, column, width);
        if (full < blocks) block(a, tile, dense + (long)full * k, c, n, k, full * block_rows, m - full * block_rows, column, width);
    }
    free(tile);
    free(dense);
}

void fp_multiply_add(const float *a, const float *b, float *c, int m, int n, int k, int scalar) {
    if (scalar || !__builtin_cpu_supports("avx2")) scalar_product(a, b, c, m, n, k);
    else vector_product(a, b, c, m, n, k);
}
