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

/// A front end that is one STFT with a per-frame transform into `columns` values (band energies,
/// loudest bins, chroma): run over a whole signal, or fed block by block as a file decodes, with the
/// same rows either way; the stream holds one frame of samples, never the signal.
public struct FrameFrontEnd: Sendable {
    public var stft: STFT
    public var columns: Int
    public var transform: @Sendable ([Float], inout ArraySlice<Float>) -> Void

    public init(stft: STFT, columns: Int, transform: @escaping @Sendable ([Float], inout ArraySlice<Float>) -> Void) {
        self.stft = stft
        self.columns = columns
        self.transform = transform
    }

    /// The rows of a whole signal.
    public func rows(_ samples: [Float]) -> Matrix { stft.map(samples, columns: columns, transform) }

    public func stream() -> FrameStream { FrameStream(self) }
}

/// `FrameFrontEnd` fed block by block: frames are cut as soon as their samples have arrived.
public final class FrameStream {
    private let frontEnd: FrameFrontEnd
    private let fft: RealFFT
    private let coefficients: [Float]?
    private var pending: [Float] = []
    /// Where the next frame starts in `pending`.
    private var next = 0
    private var power: [Float] = []
    private var values: [Float] = []
    private var row: [Float]
    public private(set) var sampleCount = 0
    /// Whether any sample was not zero (silence has no fingerprint).
    public private(set) var heardSound = false

    init(_ frontEnd: FrameFrontEnd) {
        self.frontEnd = frontEnd
        fft = RealFFT(size: frontEnd.stft.frameSize)
        coefficients = frontEnd.stft.window.coefficients(size: frontEnd.stft.frameSize)
        row = [Float](repeating: 0, count: frontEnd.columns)
    }

    public func consume(_ block: UnsafeBufferPointer<Float>) {
        sampleCount += block.count
        if !heardSound { heardSound = block.contains { $0 != 0 } }
        pending.append(contentsOf: block)
        let size = frontEnd.stft.frameSize, hop = frontEnd.stft.hop
        pending.withUnsafeBufferPointer { all in
            while next + size <= all.count {
                fft.powerSpectrum(UnsafeBufferPointer(rebasing: all[next..<(next + size)]), window: coefficients, into: &power)
                for i in row.indices { row[i] = 0 }
                var slice = row[...]
                frontEnd.transform(power, &slice)
                values.append(contentsOf: slice)
                next += hop
            }
        }
        // Keep only what later frames still need.
        if next > size {
            let drop = min(next, pending.count)
            pending.removeFirst(drop)
            next -= drop
        }
    }

    /// The rows so far: every full frame of what was consumed.
    public func finish() -> Matrix { Matrix(rows: values.count / frontEnd.columns, columns: frontEnd.columns, values: values) }
}
