import AudioIO
import DSP

/// What an algorithm emits for one recording: a sequence of sub-fingerprints with their timing.
/// Codable, so fingerprints can be cached on disk and written as JSON.
public protocol Fingerprint: Codable, Sendable {
    /// Bytes a catalog has to store for this fingerprint (the payload, not Swift's overhead).
    var byteCount: Int { get }
    /// Seconds of audio the fingerprint covers.
    var duration: Double { get }
    /// How many sub-fingerprints it holds (AFA images, Haitsma-Kalker frames, constellation hashes, ...).
    var subFingerprintCount: Int { get }
    /// The sub-fingerprints covering [start, start + duration) seconds (clipped to the recording) and
    /// the second the first of them starts at; nil when the fingerprint cannot be cut (then a catalog
    /// verifies a candidate against the whole reference).
    func slice(from start: Double, duration: Double) -> (print: Self, start: Double)?
}

extension Fingerprint {
    public func slice(from start: Double, duration: Double) -> (print: Self, start: Double)? { nil }
}

/// The indices of the sorted `times` that lie in [low, high).
func indices(of times: [UInt32], from low: UInt32, to high: UInt32) -> Range<Int> {
    let first = times.lowerBound { $0 < low }
    return first..<max(first, times.lowerBound { $0 < high })
}

/// The indices of a sequence of sub-fingerprints `step` seconds apart that cover [start, start + duration).
public func sliceRange(count: Int, step: Double, from start: Double, duration: Double) -> Range<Int> {
    let first = min(count, max(0, Int((start / step).rounded(.down))))
    let end = min(count, max(first, Int(((start + duration) / step).rounded(.up))))
    return first..<end
}

/// The result of comparing one query fingerprint with one reference fingerprint.
public struct Comparison: Sendable, Codable, Equatable {
    /// 0 ... 1, where 1 means identical.
    public var score: Double
    /// Where the query starts in the reference, in seconds (0 for algorithms that do not align).
    public var offset: Double
    /// The figure the algorithm reports natively (MAA's count of matching windows, a bit-error rate, ...).
    public var rawFigure: Double
    /// Seconds of reference per second of query along the match (1.05: the query plays 5 % fast), for
    /// algorithms that find it (Panako); nil for the others, which assume 1.
    public var timeFactor: Double?

    public init(score: Double, offset: Double, rawFigure: Double, timeFactor: Double? = nil) {
        self.score = score
        self.offset = offset
        self.rawFigure = rawFigure
        self.timeFactor = timeFactor
    }
}

/// The seam every algorithm plugs into. Vocabulary, used across the project:
/// frame (one STFT window) -> sub-fingerprint (an algorithm's unit: a 400-bit image print, a 32-bit word,
/// a peak-pair hash) -> fingerprint (a recording's sub-fingerprints) -> hit (a query sub-fingerprint that
/// agrees with a reference's) -> comparison (query vs one reference) -> match (a catalog's ranked answer).
public protocol FingerprintAlgorithm: Sendable {
    associatedtype Print: Fingerprint

    /// Short stable identifier used on the command line and in result files: "afa-thesis".
    var identifier: String { get }
    /// Bumped whenever the fingerprints change for the same input and parameters (a fix, a faster
    /// path with other bits); part of the cache key, and pinned by the conformance kit's golden test.
    var revision: Int { get }
    var displayName: String { get }
    /// The sample rate the algorithm wants its mono input at.
    var sampleRate: Double { get }
    /// Every parameter, with provenance.
    var profile: Profile { get }
    /// The shortest input that yields a non-empty fingerprint, in seconds.
    var minimumDuration: Double { get }
    /// The step in which `Comparison.offset` is reported, in seconds; nil when the algorithm does not
    /// align query and reference at all (the thesis's MAA).
    var offsetResolution: Double? { get }
    /// What `Comparison.rawFigure` counts: "matching windows", "bit-error rate", ...
    var rawFigureName: String { get }
    /// What it can do that its types do not show (`Capabilities.timeFactor`); none unless it says so.
    var declaredCapabilities: Capabilities { get }

    /// Fingerprints mono audio already at `sampleRate`. Queries may be fingerprinted more densely
    /// than references (Waveprint does); most algorithms ignore the role.
    func fingerprint(_ audio: Audio, role: FingerprintRole) throws -> Print
    func compare(query: Print, reference: Print) -> Comparison

    /// Whether a comparison is good enough to call a match; below it a catalog answers "no match".
    /// The threshold is part of `profile`.
    func isMatch(_ comparison: Comparison) -> Bool

    /// The catalog index for this algorithm's fingerprints; brute force unless the algorithm has a real one.
    associatedtype Index: FingerprintIndex = BruteForceIndex<Print> where Index.Print == Print
    func makeIndex() -> Index
}

extension FingerprintAlgorithm where Index == BruteForceIndex<Print> {
    public func makeIndex() -> Index { BruteForceIndex() }
}

extension FingerprintAlgorithm {
    public var declaredCapabilities: Capabilities { [] }
}

/// Whether audio is a reference (stored in a catalog) or a query (looked up).
public enum FingerprintRole: String, Sendable, Codable {
    case reference, query
}

/// Input an algorithm cannot fingerprint; checked once for all algorithms in `AnyAlgorithm`.
public enum FingerprintError: Error, Equatable, CustomStringConvertible {
    case tooShort(duration: Double, minimum: Double)
    case silent
    case wrongSampleRate(got: Double, wanted: Double)
    case noSubFingerprints(duration: Double)

    public var description: String {
        switch self {
        case .tooShort(let d, let m):
            return "too short: \(String(format: "%.3f", d)) s of audio, the algorithm needs at least \(String(format: "%.3f", m)) s"
        case .silent: return "silent: every sample is zero, there is nothing to fingerprint"
        case .wrongSampleRate(let got, let wanted): return "audio is at \(got) Hz, the algorithm wants \(wanted) Hz"
        case .noSubFingerprints(let d):
            return "no sub-fingerprints in \(String(format: "%.3f", d)) s of audio: too short or too quiet for this algorithm"
        }
    }
}

/// Builds one fingerprint from samples fed block by block, as a file decodes, holding a bounded window
/// of them plus what the fingerprint needs, never the signal.
public protocol PrintStream: AnyObject {
    associatedtype Print: Fingerprint
    func consume(_ block: UnsafeBufferPointer<Float>)
    /// The fingerprint of everything consumed (`duration` seconds of it).
    func finish(duration: Double) throws -> Print
}

/// An algorithm that fingerprints a file as it decodes (`AnyAlgorithm.fingerprint(file:)`). Audio in
/// memory goes through the same stream as one block, so there is one path and both give the same bits.
public protocol StreamingFingerprinting: FingerprintAlgorithm {
    associatedtype Stream: PrintStream where Stream.Print == Print
    func stream(role: FingerprintRole) -> Stream
}

extension StreamingFingerprinting {
    public func fingerprint(_ audio: Audio, role: FingerprintRole) throws -> Print {
        let stream = stream(role: role)
        audio.samples.withUnsafeBufferPointer { stream.consume($0) }
        return try stream.finish(duration: audio.duration)
    }
}

/// The back end of a framed algorithm: takes the front end's rows one at a time, in order.
public protocol RowBuilder {
    associatedtype Print: Fingerprint
    mutating func add(_ row: UnsafeBufferPointer<Float>)
    func finish(duration: Double) -> Print
}

/// An algorithm whose front end is one STFT with a per-frame transform (`FrameFrontEnd`) and whose back
/// end reads the rows as they come (`RowBuilder`); streaming comes with it.
public protocol FramedFingerprinting: StreamingFingerprinting where Stream == FramedStream<Builder> {
    associatedtype Builder: RowBuilder where Builder.Print == Print
    var frontEnd: FrameFrontEnd { get }
    func rowBuilder(role: FingerprintRole) -> Builder
}

extension FramedFingerprinting {
    public func stream(role: FingerprintRole) -> FramedStream<Builder> { FramedStream(frontEnd.stream(), rowBuilder(role: role)) }
}

/// A frame stream feeding a row builder.
public final class FramedStream<Builder: RowBuilder>: PrintStream {
    /// Its front end's stream; where another stream's rows are added instead, free for several algorithms' rows.
    public let frames: FrameStream
    private var builder: Builder

    init(_ frames: FrameStream, _ builder: Builder) {
        self.frames = frames
        self.builder = builder
    }

    public func consume(_ block: UnsafeBufferPointer<Float>) { frames.consume(block) { builder.add($0) } }
    /// The next row, from another stream of the same rows (`FrameFrontEnd.computesSameRows`) in place of this one's.
    public func add(_ row: UnsafeBufferPointer<Float>) { builder.add(row) }
    public func finish(duration: Double) -> Builder.Print { builder.finish(duration: duration) }
}

/// A back end that keeps every row as it is and makes the fingerprint from them at the end (the rows
/// are the fingerprint: MAA's loudest bins, chroma vectors).
public struct KeptRows<Print: Fingerprint>: RowBuilder {
    private var values: [Float] = []
    private let make: @Sendable ([Float], Double) -> Print

    public init(_ make: @escaping @Sendable (_ values: [Float], _ duration: Double) -> Print) { self.make = make }

    public mutating func add(_ row: UnsafeBufferPointer<Float>) { values.append(contentsOf: row) }
    public func finish(duration: Double) -> Print { make(values, duration) }
}
