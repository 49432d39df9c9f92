#include "vector_search.h"

#include <faiss/AutoTune.h>
#include <faiss/impl/io.h>
#include <faiss/index_factory.h>
#include <faiss/index_io.h>

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

// libgomp's (FAISS is built with it); its omp.h is GCC's, out of clang's reach.
extern "C" void omp_set_num_threads(int);
extern "C" int omp_get_num_procs(void);
// BLAS's Fortran entry point, OpenBLAS's here: its cblas_sgemm would lose to GSL's own reference CBLAS
// (libgslcblas, loaded first), which exports the same name and runs a tenth as fast.
extern "C" void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const float *alpha,
                       const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c, const int *ldc);

struct vs_faiss {
    std::unique_ptr<faiss::Index> index;
    /// Rows added so far (zero rows of an L2 index included, though not held: see `vs_faiss_add`).
    int64_t rows;
};

namespace {

/// Base rows per block: a block's products (at most a few hundred queries by 1,024 rows) stay in cache
/// until the best of them are kept.
const int64_t block_rows = 1024;

struct Hit {
    float score;
    int64_t row;
};

/// Better: a larger score, then a lower row.
bool better(const Hit &a, const Hit &b) { return a.score > b.score || (a.score == b.score && a.row < b.row); }

/// c (m x n) = a (m x k) * b^T, b being (n x k), row-major: column-major BLAS computes c^T = b a^T.
void multiply_transposed(const float *a, const float *b, float *c, int m, int n, int k) {
    const float one = 1.0f, zero = 0.0f;
    sgemm_("T", "N", &n, &m, &k, &one, b, &k, a, &k, &zero, c, &n);
}

// Exact search's products. Each is one chain of fused multiply-adds over the dimensions in order, from 0:
// the vector kernel (AVX2) and the scalar one give the same bits on every processor, which BLAS, choosing
// its kernel and its order of sums by processor, does not. Base rows are packed 16 at a time, as BLAS packs,
// into two panels of 8 rows laid out by dimension ([dimension][8]): one load brings a dimension of 8 rows,
// and each query's value is broadcast against two of them, 12 sums of up to 6 queries kept in registers.
const int pack_rows = 16, pack_queries = 6;

/// products[j * stride + r], r < 16, of the pack with queries j < G (each `dimension` floats).
template <int G>
__attribute__((target("avx2,fma"))) void pack_products(const float *pack, const float *queries, int dimension,
                                                         float *products, int64_t stride) {
    __m256 low[G], high[G];
    for (int j = 0; j < G; j++) low[j] = high[j] = _mm256_setzero_ps();
    for (int t = 0; t < dimension; t++) {
        const __m256 a = _mm256_loadu_ps(pack + t * 8), b = _mm256_loadu_ps(pack + (dimension + t) * 8);
        for (int j = 0; j < G; j++) {
            const __m256 x = _mm256_broadcast_ss(queries + j * dimension + t);
            low[j] = _mm256_fmadd_ps(a, x, low[j]);
            high[j] = _mm256_fmadd_ps(b, x, high[j]);
        }
    }
    for (int j = 0; j < G; j++) {
        _mm256_storeu_ps(products + j * stride, low[j]);
        _mm256_storeu_ps(products + j * stride + 8, high[j]);
    }
}

using PackKernel = void (*)(const float *, const float *, int, float *, int64_t);
const PackKernel pack_kernels[pack_queries + 1] = {nullptr, pack_products<1>, pack_products<2>, pack_products<3>,
                                                    pack_products<4>, pack_products<5>, pack_products<6>};

bool vector_kernel() {
    static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return available;
}

/// Where row r's value t lies in the packed layout: packs of 16 rows, each two panels of 8 rows by dimension.
inline int64_t packed_at(int64_t r, int t, int d) { return (r / pack_rows) * pack_rows * d + (r % pack_rows / 8) * 8 * d + t * 8 + r % 8; }

/// products (n x stride, stride a multiple of 16 >= m) of the queries with `m` packed base rows from the
/// pack at `packed`, in the kernel's order of sums: by the vector kernel, or by the scalar one where the
/// processor has none or `scalar` asks.
void block_products(const float *packed, int64_t m, int d, const float *queries, int64_t n, float *products,
                    int64_t stride, bool scalar) {
    if (scalar || !vector_kernel()) {
        for (int64_t q = 0; q < n; q++) {
            for (int64_t r = 0; r < m; r++) {
                float sum = 0;
                for (int t = 0; t < d; t++) sum = std::fma(packed[packed_at(r, t, d)], queries[q * d + t], sum);
                products[q * stride + r] = sum;
            }
        }
        return;
    }
    for (int64_t first = 0; first < m; first += pack_rows) {
        for (int64_t q = 0, groups = (n + pack_queries - 1) / pack_queries; q < n; groups--) {
            const int g = (int)((n - q + groups - 1) / groups);  // the queries shared evenly: 19 as 5, 5, 5, 4
            pack_kernels[g](packed + first * d, queries + q * d, d, products + q * stride + first, stride);
            q += g;
        }
    }
}

void say(char *error, size_t size, const char *message) {
    if (error && size) std::snprintf(error, size, "%s", message);
}

/// One thread for FAISS searches, set on each thread that calls it (OpenMP's setting is the calling
/// thread's): fpbench parallelises queries itself. Training and adding rows, which a catalog's one
/// building thread asks for, take every core.
void single_thread() { omp_set_num_threads(1); }

struct EveryCore {
    EveryCore() { omp_set_num_threads(omp_get_num_procs()); }
    ~EveryCore() { single_thread(); }
};

/// nprobe for an inverted file, efSearch for HNSW (FAISS's own names, set as its autotuner does).
void set_probes(faiss::Index *index, int probes) {
    if (probes <= 0) return;
    faiss::ParameterSpace space;
    for (const char *name : {"nprobe", "efSearch"}) {
        try {
            space.set_index_parameter(index, name, probes);
            return;
        } catch (const std::exception &) {
            // not this kind of index
        }
    }
}

/// Counts what `write_index` would write, holding none of it.
struct CountingWriter : faiss::IOWriter {
    size_t bytes = 0;
    size_t operator()(const void *, size_t size, size_t items) override {
        bytes += size * items;
        return items;
    }
};

/// FAISS's inverted multi-index searches by L2 only; over unit rows it ranks as the inner product does.
faiss::MetricType metric_for(const char *description) {
    return std::strncmp(description, "IMI", 3) == 0 ? faiss::METRIC_L2 : faiss::METRIC_INNER_PRODUCT;
}

/// At most this many rows, evenly spaced, train an index: its k-means sample no more (256 points a
/// centroid for 256-centroid quantizers), and a product quantizer's training grows with them.
const int64_t training_rows = 1 << 17;

/// Puts `hit` in the place of the worst kept (the heap's front).
void replace_worst(std::vector<Hit> &heap, Hit hit) {
    std::pop_heap(heap.begin(), heap.end(), better);
    heap.back() = hit;
    std::push_heap(heap.begin(), heap.end(), better);
}

/// From j on, the rows whose score beats the worst kept, 8 scores compared at a time; returns where it stopped.
__attribute__((target("avx2"))) int64_t keep_best_vector(std::vector<Hit> &heap, const float *scores, int64_t j, int64_t m,
                                                         int64_t first) {
    for (; j + 8 <= m; j += 8) {
        int above = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(scores + j), _mm256_set1_ps(heap.front().score), _CMP_GT_OQ));
        for (; above; above &= above - 1) {
            const int64_t r = j + __builtin_ctz(above);
            if (scores[r] > heap.front().score) replace_worst(heap, {scores[r], first + r});
        }
    }
    return j;
}

/// Keeps in `heap` (a min-heap by `better`: its front the worst kept) the k best of its hits and the m
/// scores of rows first, first + 1, ... Rows come in ascending order, so once k are kept a row is better
/// than the worst exactly when its score is larger: 8 scores at a time are compared with it.
void keep_best(std::vector<Hit> &heap, const float *scores, int64_t m, int64_t first, int k, bool scalar) {
    int64_t j = 0;
    for (; j < m && (int)heap.size() < k; j++) {
        heap.push_back({scores[j], first + j});
        std::push_heap(heap.begin(), heap.end(), better);
    }
    if (!scalar && vector_kernel()) j = keep_best_vector(heap, scores, j, m, first);
    for (; j < m; j++) {
        if (scores[j] > heap.front().score) replace_worst(heap, {scores[j], first + j});
    }
}

}  // namespace

extern "C" void vs_multiply_transposed(const float *a, const float *b, float *c, int m, int n, int k) {
    multiply_transposed(a, b, c, m, n, k);
}

extern "C" int64_t vs_packed_count(int64_t count, int dimension) { return (count + pack_rows - 1) / pack_rows * pack_rows * dimension; }

extern "C" void vs_pack(const float *rows, int64_t count, int dimension, float *packed) {
    for (int64_t r = 0; r < vs_packed_count(count, dimension) / dimension; r++) {
        for (int t = 0; t < dimension; t++) packed[packed_at(r, t, dimension)] = r < count ? rows[r * dimension + t] : 0;
    }
}

extern "C" void vs_unpack(const float *packed, int64_t count, int dimension, float *rows) {
    for (int64_t r = 0; r < count; r++) {
        for (int t = 0; t < dimension; t++) rows[r * dimension + t] = packed[packed_at(r, t, dimension)];
    }
}

extern "C" void vs_exact_search(const float *base, int64_t count, int dimension, const float *queries, int64_t n, int k,
                                int scalar, float *scores, int64_t *rows) {
    std::vector<std::vector<Hit>> best(n);
    const int64_t stride = (std::min(count, block_rows) + pack_rows - 1) / pack_rows * pack_rows;
    std::vector<float> products(static_cast<size_t>(n) * stride);
    for (int64_t first = 0; first < count; first += block_rows) {
        const int64_t m = std::min(block_rows, count - first);
        block_products(base + first * dimension, m, dimension, queries, n, products.data(), stride, scalar != 0);  // first: a multiple of 16
        for (int64_t q = 0; q < n; q++) keep_best(best[q], products.data() + q * stride, m, first, k, scalar != 0);
    }
    for (int64_t q = 0; q < n; q++) {
        auto &hits = best[q];
        std::sort(hits.begin(), hits.end(), better);
        for (int i = 0; i < k; i++) {
            const bool kept = i < (int)hits.size();
            scores[q * k + i] = kept ? hits[i].score : -std::numeric_limits<float>::infinity();
            rows[q * k + i] = kept ? hits[i].row : -1;
        }
    }
}

extern "C" vs_faiss *vs_faiss_build(const char *description, int dimension, const float *base, int64_t count, int probes,
                                    char *error, size_t error_size) {
    EveryCore cores;
    try {
        std::unique_ptr<faiss::Index> index(faiss::index_factory(dimension, description, metric_for(description)));
        const int64_t every = std::max<int64_t>(1, count / training_rows);
        std::vector<float> sample;
        for (int64_t r = 0; r < count; r += every) sample.insert(sample.end(), base + r * dimension, base + (r + 1) * dimension);
        index->train(static_cast<int64_t>(sample.size()) / dimension, sample.data());
        set_probes(index.get(), probes);
        auto *made = new vs_faiss{std::move(index), 0};
        if (vs_faiss_add(made, base, count, error, error_size) != 0) {
            delete made;
            return nullptr;
        }
        return made;
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
        return nullptr;
    }
}

extern "C" int vs_faiss_add(vs_faiss *index, const float *rows, int64_t count, char *error, size_t error_size) {
    EveryCore cores;
    try {
        const int dimension = index->index->d;
        if (index->index->metric_type == faiss::METRIC_INNER_PRODUCT) {
            index->index->add(count, rows);
        } else {
            // A zero row (a silent segment) would be as near as 0.5 to every query by L2: it is left out,
            // the others keep their row numbers as ids.
            std::vector<float> kept;
            std::vector<faiss::Index::idx_t> ids;
            for (int64_t r = 0; r < count; r++) {
                const float *row = rows + r * dimension;
                if (std::all_of(row, row + dimension, [](float x) { return x == 0.0f; })) continue;
                kept.insert(kept.end(), row, row + dimension);
                ids.push_back(index->rows + r);
            }
            index->index->add_with_ids(static_cast<int64_t>(ids.size()), kept.data(), ids.data());
        }
        index->rows += count;
        return 0;
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
        return -1;
    }
}

extern "C" int vs_faiss_search(const vs_faiss *index, const float *queries, int64_t n, int k, float *scores, int64_t *rows,
                               char *error, size_t error_size) {
    single_thread();
    try {
        std::vector<faiss::Index::idx_t> labels(static_cast<size_t>(n) * k);
        index->index->search(n, queries, k, scores, labels.data());
        const bool l2 = index->index->metric_type == faiss::METRIC_L2;
        for (size_t i = 0; i < labels.size(); i++) {
            rows[i] = labels[i];
            if (labels[i] < 0) scores[i] = -std::numeric_limits<float>::infinity();
            else if (l2) scores[i] = 1 - scores[i] / 2;  // |q - r|^2 = 2 - 2 q.r for unit rows
        }
        return 0;
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
        return -1;
    }
}

extern "C" uint8_t *vs_faiss_write(const vs_faiss *index, size_t *size, char *error, size_t error_size) {
    try {
        faiss::VectorIOWriter writer;
        faiss::write_index(index->index.get(), &writer);
        auto *bytes = static_cast<uint8_t *>(std::malloc(std::max<size_t>(1, writer.data.size())));
        if (!bytes) {
            say(error, error_size, "out of memory");
            return nullptr;
        }
        std::memcpy(bytes, writer.data.data(), writer.data.size());
        *size = writer.data.size();
        return bytes;
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
        return nullptr;
    }
}

extern "C" vs_faiss *vs_faiss_read(const uint8_t *bytes, size_t size, int probes, char *error, size_t error_size) {
    single_thread();
    try {
        faiss::VectorIOReader reader;
        reader.data.assign(bytes, bytes + size);
        std::unique_ptr<faiss::Index> index(faiss::read_index(&reader));
        set_probes(index.get(), probes);
        const int64_t rows = index->ntotal;
        return new vs_faiss{std::move(index), rows};
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
        return nullptr;
    }
}

extern "C" size_t vs_faiss_byte_count(const vs_faiss *index) {
    CountingWriter writer;
    faiss::write_index(index->index.get(), &writer);
    return writer.bytes;
}

extern "C" int vs_faiss_dimension(const vs_faiss *index) { return index->index->d; }

extern "C" void vs_faiss_free(vs_faiss *index) { delete index; }
