import DSP
import Synchronization

/// Seeded permutations of the sparse vector's positions, made once per parameter set, on first use (a
/// process that never fingerprints with Waveprint, every other command, does not draw its 819,200 numbers).
final class MinHashPermutations: Sendable {
    let count: Int
    let length: Int
    let seed: UInt64
    private let made = Mutex<[UInt16]?>(nil)

    init(count: Int, length: Int, seed: UInt64) {
        precondition(length <= Int(UInt16.max) + 1)
        (self.count, self.length, self.seed) = (count, length, seed)
    }

    /// `count` permutations of 0..<length, one after another.
    var order: [UInt16] {
        made.withLock { made in
            if let made { return made }
            let noise = SeededNoise(seed: seed)
            var order: [UInt16] = []
            order.reserveCapacity(count * length)
            for _ in 0..<count {
                // Fisher-Yates, drawing from GSL's MT19937.
                var permutation = (0..<length).map { UInt16($0) }
                for i in stride(from: length - 1, to: 0, by: -1) { permutation.swapAt(i, noise.integer(below: i + 1)) }
                order += permutation
            }
            made = order
            return order
        }
    }
}

/// Waveprint's sub-fingerprint: the top wavelets' signs at their positions (a sparse 2 × 4,096-bit vector),
/// min-hashed by each permutation (the first position, in permutation order, holding a 1), and the
/// min-hashes grouped into LSH table keys.
struct MinHasher {
    /// The permutations' positions (`MinHashPermutations.order`), taken once per fingerprint.
    let order: [UInt16]
    let count: Int
    let length: Int
    let topWavelets: Int
    let tableCount: Int

    init(permutations: MinHashPermutations, topWavelets: Int, tableCount: Int) {
        (order, count, length) = (permutations.order, permutations.count, permutations.length)
        (self.topWavelets, self.tableCount) = (topWavelets, tableCount)
    }

    func tableKeys(_ wavelets: [Float]) -> [UInt64] {
        let perTable = count / tableCount
        // The sparse vector on the stack, read through raw buffers: a permutation is read until its first set
        // bit, about 40 positions, 100 times an image.
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: 2 * wavelets.count) { bits in
            bits.initialize(repeating: false)
            for coefficient in topCoefficients(wavelets, count: topWavelets, ranked: false) where coefficient.value != 0 {
                bits[2 * coefficient.index + (coefficient.value > 0 ? 0 : 1)] = true
            }
            return order.withUnsafeBufferPointer { order in
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
}
