import DSP

/// A fingerprint made of 32-bit keys an index looks up (constellation's and Panako's hashes,
/// Haitsma-Kalker's words): what the synthetic scale test redraws to grow a catalog past its real tracks.
public protocol KeyedFingerprint: Fingerprint {
    var keys: [UInt32] { get set }
}

extension HashFingerprint: KeyedFingerprint {
    public var keys: [UInt32] {
        get { hashes }
        set { hashes = newValue }
    }
}

extension AnyFingerprint {
    /// The keys of a fingerprint that has them (nil: the algorithm's fingerprints are not keyed).
    public var keys: [UInt32]? { (base as? any KeyedFingerprint)?.keys }

    /// A synthetic fingerprint: this one's timing (its length, its keys' times and count) with every key
    /// drawn independently from `pool` (a real catalog's keys, so popular keys stay popular), seeded.
    /// It stands for a track that is not in the catalog; a real query matches it only by chance.
    public func redrawingKeys(from pool: [UInt32], seed: UInt64) -> AnyFingerprint? {
        guard var keyed = base as? any KeyedFingerprint, !pool.isEmpty else { return nil }
        let random = SeededNoise(seed: seed)
        keyed.keys = keyed.keys.map { _ in pool[min(pool.count - 1, Int(random.unit() * Double(pool.count)))] }
        return AnyFingerprint(algorithm: algorithm, base: keyed)
    }
}
