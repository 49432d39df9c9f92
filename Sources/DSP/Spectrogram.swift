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
}

/// A front end that is one STFT with a per-frame transform into `columns` values (band energies,
/// loudest bins, chroma, the power spectrum itself), fed block by block as a file decodes: each frame
/// is cut as soon as its samples have arrived, so the stream holds one frame of samples, never the signal.
public struct FrameFrontEnd: Sendable {
    public var stft: STFT
    public var columns: Int
    public var transform: @Sendable ([Float], inout ArraySlice<Float>) -> Void
    /// What `transform` computes, where it is one of the kinds below (nil: a transform of its own).
    public var rows: Rows?

    /// The transforms that front ends share: two with the same kind and the same STFT compute the same rows.
    public enum Rows: Sendable, Equatable {
        case power
        case bandEnergies(BandMapper)
        case logFrequency(LogFrequencyMapper)
    }

    public init(stft: STFT, columns: Int, rows: Rows? = nil, transform: @escaping @Sendable ([Float], inout ArraySlice<Float>) -> Void) {
        self.stft = stft
        self.columns = columns
        self.rows = rows
        self.transform = transform
    }

    /// Whether this front end and `other` compute the same rows from the same samples (one can stand for both).
    public func computesSameRows(as other: FrameFrontEnd) -> Bool {
        rows != nil && rows == other.rows && stft == other.stft && columns == other.columns
    }

    /// The power spectrum itself, frameSize/2 + 1 bins per row.
    public static func power(_ stft: STFT) -> FrameFrontEnd {
        FrameFrontEnd(stft: stft, columns: stft.frameSize / 2 + 1, rows: .power) { power, row in
            row.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: power) }
        }
    }

    public func stream() -> FrameStream { FrameStream(self) }

    /// The rows of a whole signal, one per full frame.
    public func rows(_ samples: [Float]) -> Matrix {
        var values: [Float] = []
        values.reserveCapacity(stft.frameCount(sampleCount: samples.count) * columns)
        samples.withUnsafeBufferPointer { all in stream().consume(all) { values.append(contentsOf: $0) } }
        return Matrix(rows: values.count / columns, columns: columns, values: values)
    }
}

/// `FrameFrontEnd` fed block by block; hands each frame's row out as soon as the frame is complete.
public final class FrameStream {
    public let frontEnd: FrameFrontEnd
    private let fft: RealFFT
    private let coefficients: [Float]?
    /// Samples from the next frame's start on (fewer than a frame).
    private var pending: [Float] = []
    private var power: [Float] = []
    private var row: ArraySlice<Float>

    init(_ frontEnd: FrameFrontEnd) {
        self.frontEnd = frontEnd
        fft = RealFFT(size: frontEnd.stft.frameSize)
        coefficients = frontEnd.stft.window.coefficients(size: frontEnd.stft.frameSize)
        row = [Float](repeating: 0, count: frontEnd.columns)[...]
    }

    /// Cuts every frame `block` completes and hands out its row (valid only during the call).
    public func consume(_ block: UnsafeBufferPointer<Float>, row emit: (UnsafeBufferPointer<Float>) -> Void) {
        var rest = block[...]
        if !pending.isEmpty {
            // The frames that start in the held samples take what they need of the block, at most a frame.
            let held = pending.count, taken = min(block.count, frontEnd.stft.frameSize)
            pending.append(contentsOf: block[..<taken])
            let next = pending.withUnsafeBufferPointer { cutFrames($0, emit) }
            if taken == block.count {
                pending.removeFirst(min(next, pending.count))
                return
            }
            // Every frame that starts in the held samples is cut (the block holds a frame more); the rest start in it.
            pending.removeAll(keepingCapacity: true)
            rest = block[min(next - held, block.count)...]
        }
        // Frames straight from the block, only the tail kept.
        let next = cutFrames(UnsafeBufferPointer(rebasing: rest), emit)
        if next < rest.count { pending.append(contentsOf: rest.dropFirst(next)) }
    }

    /// Every full frame of `samples` (frames start every hop from the first sample); returns where the next one starts.
    private func cutFrames(_ samples: UnsafeBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void) -> Int {
        let size = frontEnd.stft.frameSize, hop = frontEnd.stft.hop
        var start = 0
        while start + size <= samples.count {
            fft.powerSpectrum(UnsafeBufferPointer(rebasing: samples[start..<(start + size)]), window: coefficients, into: &power)
            row.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }  // one uniqueness check, not one per bin
            frontEnd.transform(power, &row)
            row.withUnsafeBufferPointer(emit)
            start += hop
        }
        return start
    }
}
