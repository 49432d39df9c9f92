import Foundation

/// Band edges in Hz: `count + 1` ascending values delimiting `count` bands.
public enum BandEdges {
    /// Evenly spaced edges.
    public static func linear(from low: Double, to high: Double, count: Int) -> [Double] {
        (0...count).map { low + (high - low) * Double($0) / Double(count) }
    }

    /// Logarithmically spaced edges: each band is the same ratio wider than the one before.
    public static func logarithmic(from low: Double, to high: Double, count: Int) -> [Double] {
        (0...count).map { low * pow(high / low, Double($0) / Double(count)) }
    }
}

/// Maps a power spectrum to band energies: the mean power of the FFT bins whose centre frequency
/// lies in [lower edge, upper edge). A band too narrow to hold a bin takes the bin nearest its centre.
public struct BandMapper: Sendable, Equatable {
    public let edges: [Double]
    /// The half-open bin range of each band.
    public let binRanges: [Range<Int>]

    public init(edges: [Double], fftSize: Int, sampleRate: Double) {
        precondition(edges.count >= 2, "at least one band")
        self.edges = edges
        let binWidth = sampleRate / Double(fftSize)
        let lastBin = fftSize / 2
        binRanges = (0..<(edges.count - 1)).map { band in
            let first = Int((edges[band] / binWidth).rounded(.up))
            let end = min(lastBin + 1, Int((edges[band + 1] / binWidth).rounded(.up)))
            if first < end { return first..<end }
            let centre = min(lastBin, Int(((edges[band] + edges[band + 1]) / 2 / binWidth).rounded()))
            return centre..<(centre + 1)
        }
    }

    public var bandCount: Int { binRanges.count }

    /// Mean power per band, written into `bands` (which must hold `bandCount` values).
    public func energies(of power: [Float], into bands: inout ArraySlice<Float>) {
        for (band, range) in binRanges.enumerated() {
            var sum: Float = 0
            for k in range { sum += power[k] }
            bands[bands.startIndex + band] = sum / Float(range.count)
        }
    }

    public func energies(of power: [Float]) -> [Float] {
        var bands = [Float](repeating: 0, count: bandCount)[...]
        energies(of: power, into: &bands)
        return Array(bands)
    }
}

extension FrameFrontEnd {
    /// Band energies (mean power per band): one row per frame, one column per band.
    public static func bandEnergies(_ stft: STFT, bands: BandMapper) -> FrameFrontEnd {
        FrameFrontEnd(stft: stft, columns: bands.bandCount, rows: .bandEnergies(bands)) { power, row in bands.energies(of: power, into: &row) }
    }
}
