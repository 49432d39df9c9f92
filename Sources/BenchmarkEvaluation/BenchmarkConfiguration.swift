import AudioIO
import Degradation
import DSP
import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms

/// What to benchmark.
public struct BenchmarkConfiguration: Sendable {
    public var dataset: Dataset
    public var algorithms: [AnyAlgorithm]
    public var spec: BenchmarkSpec
    public var seed: UInt64
    public var threads: Int
    public var cacheFolder: URL?
    public var progress: ProgressMode
    public var toolVersion: String
    /// Also measure the scaling curve (catalogs of 1/16 ... all of the tracks) at this query length.
    public var scalingLength: Double?
    /// Also time Chromaprint's `fpcalc` on this many catalog tracks (the same files, after indexing),
    /// as the peer for indexing speed.
    public var peerTracks = 0
    /// Answer only this part of the queries (`--shard I/N`); the scaling curve is left out.
    public var shard: Shard?
    /// Hold only this slice of the catalog (`--catalog-shard J/M`, `BenchmarkCatalogShards`): its key
    /// counts are written into or read from `keyCountsFolder`.
    public var catalogShard: CatalogShard?
    public var keyCountsFolder: URL?
    /// The part this run writes: its queries and its slice of the catalog (nil: the whole benchmark).
    var part: Shard? {
        guard shard != nil || catalogShard != nil else { return nil }
        var part = shard ?? Shard(index: 0, count: 1)
        part.catalogShard = catalogShard
        return part
    }
    /// Index files (`fpbench index build`) to load instead of indexing, one per algorithm at most.
    public var indexFiles: [String] = []
    /// Outside systems (`--system FILE`) run beside the algorithms on the same query files.
    public var systems: [OutsideSystem] = []
    /// Where outside systems keep their indexes (one folder each, by system, version and catalog).
    public var systemStateFolder = URL(fileURLWithPath: "runs/systems")
    /// `--keep-audio`: which answers' audio to write into `keepAudioFolder` (the run's folder), up to
    /// `keepAudioLimitBytes` (failing answers of the longest queries first).
    public var keepAudio = KeepAudio.none
    public var keepAudioFolder: URL?
    public var keepAudioLimitBytes = KeepAudio.defaultLimitMegabytes * 1_000_000
    /// What a condition that needs a noise or impulse response the dataset lacks does: the project's own is
    /// borrowed (default; named in the results' `catalog.borrowed` and the summary), the condition left out, or the run refused.
    public var missingRecordings = MissingRecordingPolicy.borrow
    /// Where `borrow` takes recordings from (the project's Datasets/default, else Datasets/catalog).
    public var projectSet: RunRecordings.ProjectSet = RunRecordings.projectSet

    public init(dataset: Dataset, algorithms: [AnyAlgorithm], spec: BenchmarkSpec, seed: UInt64, threads: Int,
                cacheFolder: URL?, progress: ProgressMode, toolVersion: String, scalingLength: Double? = nil) {
        self.dataset = dataset
        self.algorithms = algorithms
        self.spec = spec
        self.seed = seed
        self.threads = threads
        self.cacheFolder = cacheFolder
        self.progress = progress
        self.toolVersion = toolVersion
        self.scalingLength = scalingLength
    }
}
