import Fingerprinting
import Foundation

/// What both engines are told whatever they run (the thesis suite's `RunConfiguration`, the benchmark's
/// `BenchmarkConfiguration`): the data and algorithms, the seed, the machine's share, the fingerprint cache,
/// what to say while working, which part to run, the audio to keep and what a missing recording does.
public struct RunSettings: Sendable {
    public var dataset: Dataset
    public var algorithms: [AnyAlgorithm]
    public var seed: UInt64
    public var threads: Int
    /// Where fingerprints are cached (nil: no cache).
    public var cacheFolder: URL?
    public var progress: ProgressMode
    public var toolVersion: String
    /// Run only this part (`--shard I/N`); `fpbench merge` gathers the parts.
    public var shard: Shard?
    /// `--keep-audio`: which answers' audio to write as WAV into `keepAudioFolder` (the run's folder; nil: none),
    /// up to `keepAudioLimitBytes` (failing answers of the longest queries first).
    public var keepAudio = KeepAudio.none
    public var keepAudioFolder: URL?
    public var keepAudioLimitBytes = KeepAudio.defaultLimitMegabytes * 1_000_000
    /// What a stage or condition that names a noise or impulse response the dataset lacks does: the run is
    /// refused, what needs it left out, or the project's own recording borrowed (from `projectSet`, checked
    /// against its checksums and named in the results).
    public var missingRecordings: MissingRecordingPolicy
    public var projectSet: RunRecordings.ProjectSet = RunRecordings.projectSet

    public init(dataset: Dataset, algorithms: [AnyAlgorithm], seed: UInt64, threads: Int, cacheFolder: URL?,
                progress: ProgressMode, toolVersion: String, missingRecordings: MissingRecordingPolicy) {
        self.dataset = dataset
        self.algorithms = algorithms
        self.seed = seed
        self.threads = threads
        self.cacheFolder = cacheFolder
        self.progress = progress
        self.toolVersion = toolVersion
        self.missingRecordings = missingRecordings
    }
}
