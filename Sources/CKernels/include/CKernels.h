// Our own numeric kernels, written so every processor computes the same bits: a learned fingerprint's
// golden hashes hold on any machine, which BLAS (choosing its kernel and its order of sums by processor)
// cannot promise. Called from Sources/Fingerprinting/Chang2021NAFP/SeparableEncoder.swift.
#ifndef CKERNELS_H
#define CKERNELS_H

/// How a product reads b and what it makes of c.
struct fp_product {
    /// Nonzero: the scalar kernel, also used where the processor lacks AVX2; the two give the same bits.
    int scalar;
    /// Nonzero: b comes in the kernel's own tiles of 16 columns, [n / 16 rounded up][k][16], element (p, j) at
    /// (j / 16) * k * 16 + p * 16 + j % 16, zeros past n (a layer's input written so by its im2col, where packing a
    /// large row-major b cost as much as the sums that read it). Zero: row-major, [k][n].
    int tiled;
    /// Not NULL: each element of row i of c starts as biases[i], and c's own values are not read.
    const float *biases;
    /// Nonzero: each element of c, once summed, below zero becomes 0 (ReLU; -0 and NaN stay as they are).
    int relu;
};

/// c (m x n) += a (m x k) times b (k x n), row-major. Each element of c adds its terms in the order of k, each
/// term a product rounded before the sum (no fused multiply-add), a term whose factor in `a` is zero skipped:
/// the AVX2 kernel and the scalar one give the same bits.
void fp_multiply_add(const float *a, const float *b, float *c, int m, int n, int k, struct fp_product options);

#endif
