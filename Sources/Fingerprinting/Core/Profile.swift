/// One parameter of an algorithm, with its value and where that value comes from.
public struct Parameter: Sendable, Codable, Equatable {
    public var name: String
    public var value: String
    /// A citation (paper and section, thesis page) or "our choice: <why>".
    public var source: String

    public init(_ name: String, _ value: CustomStringConvertible, source: String) {
        self.name = name
        self.value = value.description
        self.source = source
    }
}

/// An algorithm's full parameter set, in a fixed order, each value with its provenance.
/// Logged with every result, and part of every fingerprint cache key.
public struct Profile: Sendable, Codable, Equatable {
    public var parameters: [Parameter]

    public init(_ parameters: [Parameter]) { self.parameters = parameters }

    /// A stable one-line rendering: "name=value;name=value".
    public var key: String { parameters.map { "\($0.name)=\($0.value)" }.joined(separator: ";") }

    /// "default", or the values changed from the default ("sampleRate=22050;fanOut=5"): which variant of
    /// the algorithm this is, in tables.
    public var variant: String {
        let changed = parameters.filter { $0.source.hasPrefix(Profile.changedMark) }
        return changed.isEmpty ? "default" : changed.map { "\($0.name)=\($0.value)" }.joined(separator: ";")
    }

    static let changedMark = "changed from the default"

    /// The same profile, each value that differs from `defaults` marked, its citation kept beside the
    /// cited value, so a changed value never carries the old citation as if it were its own.
    public func marked(against defaults: Profile) -> Profile {
        Profile(parameters.map { parameter in
            guard let cited = defaults.parameters.first(where: { $0.name == parameter.name }), cited.value != parameter.value else { return parameter }
            return Parameter(parameter.name, parameter.value, source: "\(Profile.changedMark) (cited value: \(cited.value), \(cited.source))")
        })
    }
}

/// An algorithm's parameter set: a value type whose `init()` holds the published defaults.
public protocol AlgorithmParameters: Sendable, Codable, Equatable {
    init()
    /// Why these values cannot run (nil: they can): checked before a variant is made, so a bad
    /// `--set` is refused with the reason instead of trapping inside the algorithm.
    var problem: String? { get }
}

extension AlgorithmParameters {
    public var problem: String? { nil }

    /// A frame and hop every front end can run: a frame of 16 to 65,536 samples, a hop of frame / 64 (at least 1) to the frame.
    public func frameProblem(frameSize: Int, hop: Int) -> String? {
        guard (16...65_536).contains(frameSize) else { return "the frame (FFT) size must be 16 to 65,536 samples" }
        // At most 64 frames over each sample (the published settings overlap at most 32: Haitsma-Kalker's 2,048 / 64):
        // a hop of a sample or two makes thousands of frames a second, and a search that never ends.
        guard hop >= max(1, frameSize / 64) && hop <= frameSize else { return "hop must be \(max(1, frameSize / 64)) (frame size / 64) to the frame size" }
        return nil
    }

    public func isPowerOfTwo(_ n: Int, in range: ClosedRange<Int>) -> Bool { range.contains(n) && n & (n - 1) == 0 }

    /// A Haar image every wavelet front end can run (Waveprint, the AFA): bands and rows powers of two, the top
    /// wavelets within the image.
    public func haarImageProblem(bandCount: Int, imageRows: Int, topWavelets: Int) -> String? {
        if !isPowerOfTwo(bandCount, in: 4...256) || !isPowerOfTwo(imageRows, in: 4...1024) { return "bandCount (4-256) and imageRows (4-1,024) must be powers of two (a Haar image)" }
        if topWavelets < 1 || topWavelets > bandCount * imageRows { return "topWavelets must be 1 to bandCount × imageRows" }
        return nil
    }
}

/// An algorithm built from `Parameters`, describing each value with its source.
public protocol Parameterized {
    associatedtype Parameters: AlgorithmParameters
    var parameters: Parameters { get }
    init(parameters: Parameters)
    func describe() -> Profile
}

extension FingerprintAlgorithm where Self: Parameterized {
    /// `describe()`, with every value that differs from the defaults marked as changed.
    public var profile: Profile { describe().marked(against: Self(parameters: Parameters()).describe()) }
}

