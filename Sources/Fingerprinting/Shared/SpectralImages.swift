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

/// The `count` wavelet coefficients of largest magnitude, largest first; ties go to the lower index
/// so the order never depends on the sort's whims.
func topCoefficients(_ coefficients: [Float], count: Int) -> [(index: Int, value: Float)] {
    let order = coefficients.indices.sorted {
        let a = abs(coefficients[$0]), b = abs(coefficients[$1])
        return a != b ? a > b : $0 < $1
    }
    return order.prefix(count).map { (index: $0, value: coefficients[$0]) }
}
