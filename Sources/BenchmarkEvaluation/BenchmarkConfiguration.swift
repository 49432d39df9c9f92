import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms

/// What to benchmark: the run's settings (read through, `configuration.seed`) and the benchmark's own choices.
@dynamicMemberLookup
public struct BenchmarkConfiguration: Sendable {
    public var settings: RunSettings
    public var spec: BenchmarkSpec
    /// Also measure the scaling curve (catalogs of 1/16 ... all of the tracks) at this query length.
    public var scalingLength: Double?
    /// Also time Chromaprint's `fpcalc` on this many catalog tracks (the same files, after indexing),
    /// as the peer for indexing speed.
    public var peerTracks = 0
    /// Hold only this slice of the catalog (`--catalog-shard J/M`, `BenchmarkCatalogShards`): its key
    /// counts are written into or read from `keyCountsFolder`.
    public var catalogShard: CatalogShard?
    public var keyCountsFolder: URL?
    /// The part this run writes: its queries (the settings' shard; the scaling curve is left out) and its slice
    /// of the catalog (nil: the whole benchmark).
    var part: Shard? {
        guard settings.shard != nil || catalogShard != nil else { return nil }
        var part = settings.shard ?? Shard(index: 0, count: 1)
        part.catalogShard = catalogShard
        return part
    }
    /// Index files (`fpbench index build`) to load instead of indexing, one per algorithm at most.
    public var indexFiles: [String] = []
    /// Outside systems (`--system FILE`) run beside the algorithms on the same query files.
    public var systems: [OutsideSystem] = []
    /// Where outside systems keep their indexes (one folder each, by system, version and catalog).
    public var systemStateFolder = URL(fileURLWithPath: "runs/systems")

    public init(_ settings: RunSettings, spec: BenchmarkSpec, scalingLength: Double? = nil) {
        self.settings = settings
        self.spec = spec
        self.scalingLength = scalingLength
    }

    public subscript<Value>(dynamicMember path: WritableKeyPath<RunSettings, Value>) -> Value {
        get { settings[keyPath: path] }
        set { settings[keyPath: path] = newValue }
    }
}
