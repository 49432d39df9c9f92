import Foundation

/// Window functions applied to each STFT frame.
public enum WindowFunction: String, Sendable, Codable, CaseIterable {
    /// No window at all (the thesis's AFA applies none).
    case rectangular
    /// Periodic Hann: 0.5 - 0.5·cos(2πn/N).
    case hann

    public func coefficients(size: Int) -> [Float]? {
        switch self {
        case .rectangular: return nil
        case .hann: return (0..<size).map { 0.5 - 0.5 * Float(cos(2 * Double.pi * Double($0) / Double(size))) }
        }
    }
}

/// A dense row-major matrix of Float: rows are time frames, columns are bins or bands.
public struct Matrix: Sendable, Equatable {
    public let rows: Int
    public let columns: Int
    public var values: [Float]

    public init(rows: Int, columns: Int, values: [Float]) {
        precondition(values.count == rows * columns)
        self.rows = rows
        self.columns = columns
        self.values = values
    }

    public init(rows: Int, columns: Int) {
        self.init(rows: rows, columns: columns, values: [Float](repeating: 0, count: rows * columns))
    }

    public subscript(row: Int) -> ArraySlice<Float> {
        values[(row * columns)..<((row + 1) * columns)]
    }

    public subscript(row: Int, column: Int) -> Float {
        get { values[row * columns + column] }
        set { values[row * columns + column] = newValue }
    }
}

/// Short-time Fourier transform settings: frame size, hop and window.
public struct STFT: Sendable, Equatable {
    public var frameSize: Int
    public var hop: Int
    public var window: WindowFunction

    public init(frameSize: Int, hop: Int, window: WindowFunction) {
        self.frameSize = frameSize
        self.hop = hop
        self.window = window
    }

    /// Full frames that fit in `sampleCount` samples (no padding at the end).
    public func frameCount(sampleCount: Int) -> Int {
        sampleCount < frameSize ? 0 : (sampleCount - frameSize) / hop + 1
    }

    /// Power spectrogram: one row per frame, frameSize/2 + 1 bins per row; `transform` maps each row
    /// (e.g. to band energies) so the full spectrogram never has to be held.
    public func map(_ samples: [Float], columns: Int, _ transform: ([Float], inout ArraySlice<Float>) -> Void) -> Matrix {
        let frames = frameCount(sampleCount: samples.count)
        var result = Matrix(rows: frames, columns: columns)
        let fft = RealFFT(size: frameSize)
        let coefficients = window.coefficients(size: frameSize)
        var power: [Float] = []
        samples.withUnsafeBufferPointer { all in
            for frame in 0..<frames {
                let start = frame * hop
                fft.powerSpectrum(UnsafeBufferPointer(rebasing: all[start..<(start + frameSize)]), window: coefficients, into: &power)
                transform(power, &result.values[(frame * columns)..<((frame + 1) * columns)])
            }
        }
        return result
    }

    /// The plain power spectrogram.
    public func powerSpectrogram(_ samples: [Float]) -> Matrix {
        map(samples, columns: frameSize / 2 + 1) { power, row in
            for (k, p) in power.enumerated() { row[row.startIndex + k] = p }
        }
    }
}
