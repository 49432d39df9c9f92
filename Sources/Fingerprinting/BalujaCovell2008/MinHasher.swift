import DSP

/// Seeded permutations of the sparse vector's positions, made once per parameter set.
final class MinHashPermutations: Sendable {
    /// `count` permutations of 0..<length, one after another.
    let order: [UInt16]
    let count: Int
    let length: Int

    init(count: Int, length: Int, seed: UInt64) {
        precondition(length <= Int(UInt16.max) + 1)
        let noise = SeededNoise(seed: seed)
        var order: [UInt16] = []
        order.reserveCapacity(count * length)
        for _ in 0..<count {
            // Fisher-Yates, drawing from GSL's MT19937.
            var permutation = (0..<length).map { UInt16($0) }
            for i in stride(from: length - 1, to: 0, by: -1) { permutation.swapAt(i, noise.integer(below: i + 1)) }
            order += permutation
        }
        self.order = order
        self.count = count
        self.length = length
    }
}

/// Waveprint's sub-fingerprint: the top wavelets' signs at their positions (a sparse 2 × 4,096-bit vector),
/// min-hashed by each permutation (the first position, in permutation order, holding a 1), and the
/// min-hashes grouped into LSH table keys.
struct MinHasher {
    let permutations: MinHashPermutations
    let topWavelets: Int
    let tableCount: Int

    func tableKeys(_ wavelets: [Float]) -> [UInt64] {
        var bits = [Bool](repeating: false, count: 2 * wavelets.count)
        for coefficient in topCoefficients(wavelets, count: topWavelets, ranked: false) where coefficient.value != 0 {
            bits[2 * coefficient.index + (coefficient.value > 0 ? 0 : 1)] = true
        }
        let length = permutations.length, perTable = permutations.count / tableCount
        return permutations.order.withUnsafeBufferPointer { order in
            (0..<tableCount).map { table in
                var key: UInt64 = 0
                for k in 0..<perTable {
                    let base = (table * perTable + k) * length
                    var first = 0
                    while first < length - 1 && !bits[Int(order[base + first])] { first += 1 }
                    key = key << 16 | UInt64(first)
                }
                return key
            }
        }
    }
}
