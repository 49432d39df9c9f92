/// AFA's sub-fingerprint: the signs of the top wavelets, two bits each, in rank order.
///
/// The thesis's quirk: the i-th largest coefficient's sign goes to bits 2i and 2i+1, so *where* in the image
/// the coefficient was is lost; two images agree on a bit pair whenever their i-th largest coefficients
/// share a sign, which random images do half the time. Baluja & Covell keep the position (see Waveprint).
struct RankOrderSignEncoder {
    let topWavelets: Int

    /// 64-bit words needed for 2 bits per wavelet.
    var wordCount: Int { (2 * topWavelets + 63) / 64 }

    func encode(_ wavelets: [Float]) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: wordCount)
        for (rank, coefficient) in topCoefficients(wavelets, count: topWavelets).enumerated() where coefficient.value != 0 {
            // 10 = positive (bit 2i), 01 = negative (bit 2i+1), 00 = zero.
            let bit = 2 * rank + (coefficient.value > 0 ? 0 : 1)
            words[bit / 64] |= 1 << UInt64(bit % 64)
        }
        return words
    }
}
