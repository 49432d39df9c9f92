import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation

/// What to run.
public struct RunConfiguration: Sendable {
    public var dataset: Dataset
    public var algorithms: [AnyAlgorithm]
    public var suite: Suite
    public var seed: UInt64
    public var threads: Int
    /// Where fingerprints are cached (nil: no cache).
    public var cacheFolder: URL?
    /// The run's folder, into which `keepAudio` writes queries and references as WAV (`RunAudio`); nil: none.
    public var keepAudioFolder: URL?
    /// Which queries' audio to keep: those some algorithm did not identify, or all; at most `keepAudioLimitBytes`.
    public var keepAudio = KeepAudio.all
    public var keepAudioLimitBytes = KeepAudio.defaultLimitMegabytes * 1_000_000
    public var progress: ProgressMode
    public var toolVersion: String
    /// Whether to search each algorithm's catalog (references + distractors); sweeps do not report it.
    public var searchCatalogs = true
    /// Queries per source and test, each with its own seeded crop and draws (the thesis: 1).
    public var queriesPerSource = 1
    /// Run only this part of the suite's tests (test i belongs to part i mod N); `fpbench merge` gathers them.
    public var shard: Shard?
    /// What a test whose stage names a recording the dataset lacks does: the run is refused (default), the stage
    /// left out and the test marked †, or the project's recording borrowed (`checked` refuses before the run).
    public var missingRecordings = MissingRecordingPolicy.refuse
    /// Where `borrow` takes recordings from (the project's Datasets/default, else Datasets/catalog).
    public var projectSet: RunRecordings.ProjectSet = RunRecordings.projectSet

    public init(dataset: Dataset, algorithms: [AnyAlgorithm], suite: Suite, seed: UInt64, threads: Int,
                cacheFolder: URL?, keepAudioFolder: URL?, progress: ProgressMode, toolVersion: String) {
        self.dataset = dataset
        self.algorithms = algorithms
        self.suite = suite
        self.seed = seed
        self.threads = threads
        self.cacheFolder = cacheFolder
        self.keepAudioFolder = keepAudioFolder
        self.progress = progress
        self.toolVersion = toolVersion
    }
}
