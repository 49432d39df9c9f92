import DSP

/// Haitsma & Kalker's equation (1): bit m of frame n is 1 when the energy difference between bands m
/// and m+1 grew since frame n-1. 33 bands give 32 bits; bit m is stored at bit position m.
enum EnergyDifferenceHasher {
    static func words(_ energies: Matrix) -> [UInt32] {
        guard energies.rows > 1 else { return [] }
        let bits = min(32, energies.columns - 1)
        return (1..<energies.rows).map { n in
            var word: UInt32 = 0
            for m in 0..<bits {
                let now = energies[n, m] - energies[n, m + 1]
                let before = energies[n - 1, m] - energies[n - 1, m + 1]
                if now - before > 0 { word |= 1 << UInt32(m) }
            }
            return word
        }
    }
}
