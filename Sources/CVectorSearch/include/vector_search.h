// Nearest-neighbour search over float vectors by inner product: exact (every product, by our own kernel)
// and approximate (FAISS from Debian's libfaiss-dev, whose packaged library has no C API: this is ours,
// over its C++ one). Called from VectorIndex.swift.
#ifndef VECTOR_SEARCH_H
#define VECTOR_SEARCH_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Floats the packed layout of `count` rows holds (rows padded with zeros to a multiple of 16).
int64_t vs_packed_count(int64_t count, int dimension);
/// Packs `count` rows (row-major) into the layout exact search reads (`packed`: vs_packed_count floats).
void vs_pack(const float *rows, int64_t count, int dimension, float *packed);
/// The `count` rows of `packed`, row-major, as they were before `vs_pack`.
void vs_unpack(const float *packed, int64_t count, int dimension, float *rows);

/// For each of the `n` queries (rows of `dimension` floats), the `k` base rows with the largest inner
/// product, best first, ties to the lower row: `scores` and `rows` hold n * k entries (rows -1 and scores
/// -inf past the base's end). The base is `count` rows packed by `vs_pack`; it is read in blocks. Each
/// product is one chain of fused multiply-adds over the dimensions in order: the same bits from the AVX2
/// kernel and from the scalar one (used where the processor lacks AVX2, or when `scalar` is nonzero).
void vs_exact_search(const float *base, int64_t count, int dimension, const float *queries, int64_t n, int k,
                     int scalar, float *scores, int64_t *rows);

/// c (m x n) = a (m x k) times b (n x k) transposed, row-major, through BLAS.
void vs_multiply_transposed(const float *a, const float *b, float *c, int m, int n, int k);

typedef struct vs_faiss vs_faiss;

/// A FAISS index made by `description` (index_factory's language: "IVF1024,PQ32", "HNSW32", "IMI2x8,PQ32"),
/// by inner product (by L2 for an inverted multi-index, the same order over unit rows; its scores are given
/// as inner products), trained on at most 131,072 of the `count` rows, evenly spaced, and holding them all;
/// `probes` sets nprobe (IVF) or efSearch (HNSW). NULL on failure, with FAISS's message in `error`.
/// FAISS builds and adds on every core, and searches on one: fpbench runs queries in parallel.
vs_faiss *vs_faiss_build(const char *description, int dimension, const float *base, int64_t count, int probes,
                         char *error, size_t error_size);
/// Adds `count` more rows, numbered after those already added; 0, or -1 with the message in `error`.
int vs_faiss_add(vs_faiss *index, const float *rows, int64_t count, char *error, size_t error_size);
/// As `vs_exact_search`, approximately; 0, or -1 with the message in `error`.
int vs_faiss_search(const vs_faiss *index, const float *queries, int64_t n, int k, float *scores, int64_t *rows,
                    char *error, size_t error_size);
/// The index as bytes (FAISS's own format), in a buffer to release with `free`; its size in `size`.
uint8_t *vs_faiss_write(const vs_faiss *index, size_t *size, char *error, size_t error_size);
/// An index read back from `vs_faiss_write`'s bytes, with `probes`; NULL with the message when they are not one.
vs_faiss *vs_faiss_read(const uint8_t *bytes, size_t size, int probes, char *error, size_t error_size);
/// Bytes the index holds (its codes and lists), counted as `vs_faiss_write` would write them.
size_t vs_faiss_byte_count(const vs_faiss *index);
/// The rows' dimension.
int vs_faiss_dimension(const vs_faiss *index);
void vs_faiss_free(vs_faiss *index);

#ifdef __cplusplus
}
#endif
#endif
