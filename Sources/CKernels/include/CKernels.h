// Our own numeric kernels, written so every processor computes the same bits: a learned fingerprint's
// golden hashes hold on any machine, which BLAS (choosing its kernel and its order of sums by processor)
// cannot promise. Called from Sources/Fingerprinting/Chang2021NAFP/SeparableEncoder.swift.
#ifndef CKERNELS_H
#define CKERNELS_H

/// c (m x n) += a (m x k) times b (k x n), row-major. Each element of c adds its terms in the order of k, each
/// term a product rounded before the sum (no fused multiply-add), a term whose factor in `a` is zero skipped:
/// the AVX2 kernel and the scalar one (used where the processor lacks AVX2, or when `scalar` is nonzero)
/// give the same bits.
void fp_multiply_add(const float *a, const float *b, float *c, int m, int n, int k, int scalar);

#endif
