import DSP

/// The front end shared by the Haar-wavelet algorithms (thesis AFA, Waveprint): a band-energy
/// spectrogram cut into images of `rows` consecutive frames (rows = time, columns = bands).
struct SpectralImageMaker {
    let stft: STFT
    let bands: BandMapper
    let rows: Int

    init(sampleRate: Double, frameSize: Int, hop: Int, bandEdges: [Double], rows: Int) {
        stft = STFT(frameSize: frameSize, hop: hop, window: .rectangular)
        bands = BandMapper(edges: bandEdges, fftSize: frameSize, sampleRate: sampleRate)
        self.rows = rows
    }

    /// Samples one image spans: its first frame plus `rows - 1` hops.
    var imageSpan: Int { stft.frameSize + (rows - 1) * stft.hop }

    /// The band-energy spectrogram of `samples`.
    func spectrogram(_ samples: [Float]) -> Matrix { stft.bandEnergies(samples, bands: bands) }

    /// The first frame of each image, images starting every `frameStride` frames.
    func imageStarts(frameCount: Int, frameStride: Int) -> [Int] {
        frameCount < rows ? [] : Array(stride(from: 0, through: frameCount - rows, by: frameStride))
    }

    /// The image of `rows` frames starting at frame `start`.
    func image(_ spectrogram: Matrix, startingAt start: Int) -> Matrix {
        let from = start * spectrogram.columns
        return Matrix(rows: rows, columns: spectrogram.columns,
                      values: Array(spectrogram.values[from..<(from + rows * spectrogram.columns)]))
    }
}

/// The `count` wavelet coefficients of largest magnitude. With `ranked`, largest first, ties to the lower
/// index so the order never depends on the sort; without, in index order (Waveprint needs only the set).
/// Selects the cut-off magnitude in linear time: this runs once per spectral image.
func topCoefficients(_ coefficients: [Float], count: Int, ranked: Bool = true) -> [(index: Int, value: Float)] {
    let k = min(count, coefficients.count)
    guard k > 0 else { return [] }
    var magnitudes = coefficients.map { abs($0) }
    let cutoff = kthLargest(&magnitudes, k)
    var above: [Int] = [], equal: [Int] = []
    above.reserveCapacity(k)
    for i in coefficients.indices {
        let magnitude = abs(coefficients[i])
        if magnitude > cutoff { above.append(i) } else if magnitude == cutoff && equal.count < k { equal.append(i) }
    }
    var chosen = above + equal.prefix(k - above.count)
    if ranked {
        chosen.sort {
            let a = abs(coefficients[$0]), b = abs(coefficients[$1])
            return a != b ? a > b : $0 < $1
        }
    } else {
        chosen.sort()
    }
    return chosen.map { (index: $0, value: coefficients[$0]) }
}

/// The k-th largest value (k ≥ 1), by quickselect (Hoare partition); reorders `values`.
private func kthLargest(_ values: inout [Float], _ k: Int) -> Float {
    values.withUnsafeMutableBufferPointer { v in
        var low = 0, high = v.count - 1
        let target = k - 1
        while low < high {
            let pivot = v[(low &+ high) / 2]
            var i = low, j = high
            while i <= j {
                while v[i] > pivot { i &+= 1 }
                while v[j] < pivot { j &-= 1 }
                if i <= j { v.swapAt(i, j); i &+= 1; j &-= 1 }
            }
            if target <= j { high = j } else if target >= i { low = i } else { return v[target] }
        }
        return v[target]
    }
}
