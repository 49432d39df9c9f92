import DSP

/// Haitsma & Kalker's equation (1): bit m of frame n is 1 when the energy difference between bands m
/// and m+1 grew since frame n-1. 33 bands give 32 bits; bit m is stored at bit position m. Hashes each
/// frame's band energies as they come, keeping only the frame before.
public struct EnergyDifferenceHasher: RowBuilder {
    let step: Double
    private var before: [Float] = []
    private var words: [UInt32] = []

    init(step: Double) { self.step = step }

    public mutating func add(_ energies: UnsafeBufferPointer<Float>) {
        guard !before.isEmpty else { before = Array(energies); return }
        var word: UInt32 = 0
        for m in 0..<min(32, energies.count - 1) {
            let now = energies[m] - energies[m + 1]
            let then = before[m] - before[m + 1]
            if now - then > 0 { word |= 1 << UInt32(m) }
        }
        words.append(word)
        for m in energies.indices { before[m] = energies[m] }
    }

    public func finish(duration: Double) -> HKFingerprint { HKFingerprint(words: words, step: step, duration: duration) }
}
