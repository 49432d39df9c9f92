import AudioIO
import Foundation

/// Audio is decoded once at this rate and degraded there (suite excerpts, benchmark queries); each
/// algorithm resamples from it.
public let workingRate = 44_100.0

/// The program that wrote a results file.
public struct Tool: Sendable, Codable, Equatable {
    public var name: String
    public var version: String
    /// The libraries and versions that decoded the audio, per format (absent in files from before
    /// FFmpeg's decoder, when libsndfile decoded everything): a lossy file may decode to slightly
    /// different samples through another decoder.
    public var decoder: String?

    /// This fpbench, with the decoder every read uses.
    public static func fpbench(_ version: String) -> Tool {
        Tool(name: "fpbench", version: version, decoder: DecoderLibrary.policy)
    }
}

/// Something that failed or was left out: `item` and `reason` in words, and which algorithm, test,
/// source or file it concerns, where that is known (for filtering a long list).
public struct Problem: Sendable, Codable, Equatable {
    public var item: String
    public var reason: String
    public var algorithm: String?
    public var test: String?
    public var source: String?
    public var file: String?

    public init(item: String, reason: String, algorithm: String? = nil, test: String? = nil, source: String? = nil, file: String? = nil) {
        self.item = item
        self.reason = reason
        self.algorithm = algorithm
        self.test = test
        self.source = source
        self.file = file
    }
}

/// A run's choices refused before any work: an option, or options that do not go together ("--catalog-shard:
/// give --key-counts FOLDER ..."); a file's or a dataset's fault is a `DatasetError`.
public struct ChoiceError: Error, CustomStringConvertible {
    public var choice: String
    public var reason: String
    public var description: String { "\(choice): \(reason)" }

    public init(_ choice: String, reason: String) {
        self.choice = choice
        self.reason = reason
    }
}

/// Parts that cannot be gathered into one results file (`fpbench merge`): one missing, or parts of other runs.
public struct MergeError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "merge: \(reason)" }

    public init(_ reason: String) { self.reason = reason }
}
