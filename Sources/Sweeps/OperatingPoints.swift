import BenchmarkEvaluation
import Fingerprinting
import Evaluation
import Foundation

/// A benchmark's operating points (`fpbench sweep operating`): every algorithm or system run at two or more
/// values of one parameter (identifiers `NAME@PARAMETER=VALUE`), each point's accuracy beside what it
/// costs, and the points no other point beats at equal or lower cost (the Pareto front).
public struct OperatingPoints: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        /// The algorithm or system ("panako@dense", "audfprint"), its parameter and the value.
        public var name: String
        public var parameter: String
        public var value: String
        public var identifier: String
        public var outsideSystem: Bool
        public var length: Double
        public var condition: String
        /// Correct top-1 at the calibrated threshold.
        public var correct: Rate
        /// Stored per hour of catalog: an algorithm's postings and fingerprints (both in memory when it
        /// searches), a system's index folder on disk.
        public var mebibytesPerHour: Double
        /// CPU seconds to index an hour of audio (an algorithm's fingerprinting, decoding excluded; a
        /// system's whole indexing process); nil when the fingerprints came from the cache.
        public var indexingCPUSecondsPerHour: Double?
        /// CPU per query in ms: an algorithm's fingerprinting and search (medians at this length); a
        /// system's whole processes over every query it was asked (start-up shared by a batch).
        public var queryCPUMilliseconds: Double?
        public var onSizeFront = false
        public var onCPUFront = false
    }

    /// Every point, by length, condition, then the order the results list the algorithms.
    public var points: [Point]

    /// What a point costs, as `Point` holds it.
    public struct Cost: Sendable, Equatable {
        public var outsideSystem: Bool
        public var mebibytesPerHour: Double
        public var indexingCPUSecondsPerHour: Double?
        public var queryCPUMilliseconds: Double?

        public init(outsideSystem: Bool, mebibytesPerHour: Double, indexingCPUSecondsPerHour: Double?, queryCPUMilliseconds: Double?) {
            self.outsideSystem = outsideSystem
            self.mebibytesPerHour = mebibytesPerHour
            self.indexingCPUSecondsPerHour = indexingCPUSecondsPerHour
            self.queryCPUMilliseconds = queryCPUMilliseconds
        }
    }

    /// The operating points of a benchmark's results, nil when no algorithm or system has two or more.
    public init?(_ results: BenchmarkResults, metrics: BenchmarkMetrics, costs: BenchmarkCosts) {
        self.init(identifiers: results.algorithms.map(\.identifier), lengths: results.spec.queryLengths, conditions: results.spec.conditions.map(\.id),
                  correct: { metrics.condition(BenchmarkCell(algorithm: $0, length: $1, condition: $2))?.correctCalibrated }, cost: { Self.cost(of: $0, length: $1, in: costs) })
    }

    /// The points among `identifiers` (those of a name and parameter with two values or more), each with its
    /// correct rate and cost at every length and condition that has them; nil when there are none.
    public init?(identifiers: [String], lengths: [Double], conditions: [String],
                 correct: (String, Double, String) -> Rate?, cost: (String, Double) -> Cost?) {
        let parsed = identifiers.compactMap { id in Self.split(id).map { (id, $0) } }
        let counts = Dictionary(grouping: parsed, by: { "\($0.1.name)|\($0.1.parameter)" }).mapValues(\.count)
        let swept = parsed.filter { counts["\($0.1.name)|\($0.1.parameter)"]! >= 2 }
        guard !swept.isEmpty else { return nil }
        var points: [Point] = []
        for length in lengths {
            for condition in conditions {
                var cell = swept.compactMap { identifier, part -> Point? in
                    guard let rate = correct(identifier, length, condition), let c = cost(identifier, length) else { return nil }
                    return Point(name: part.name, parameter: part.parameter, value: part.value, identifier: identifier, outsideSystem: c.outsideSystem,
                                 length: length, condition: condition, correct: rate, mebibytesPerHour: c.mebibytesPerHour,
                                 indexingCPUSecondsPerHour: c.indexingCPUSecondsPerHour, queryCPUMilliseconds: c.queryCPUMilliseconds)
                }
                let sizes = Self.front(cell.map { ($0.mebibytesPerHour, $0.correct.value) })
                let cpus = Self.front(cell.map { ($0.queryCPUMilliseconds, $0.correct.value) })
                for i in cell.indices {
                    cell[i].onSizeFront = sizes.contains(i)
                    cell[i].onCPUFront = cpus.contains(i)
                }
                points += cell
            }
        }
        self.points = points
    }

    /// An algorithm's or a system's costs in a benchmark's costs.json.
    static func cost(of identifier: String, length: Double, in costs: BenchmarkCosts) -> Cost? {
        if let a = costs.algorithms.first(where: { $0.identifier == identifier }) {
            let key = QueryLength(length).tag
            var query: Double?
            if let f = a.queryFingerprintMilliseconds[key], let s = a.searchMilliseconds[key], f.p95 > 0 { query = f.median + s.median }
            return Cost(outsideSystem: false, mebibytesPerHour: a.mebibytesPerHour(a.indexBytes + a.fingerprintBytes),
                        indexingCPUSecondsPerHour: a.audioSecondsPerCPUSecond.map { 3600 / $0 }, queryCPUMilliseconds: query)
        }
        guard let s = costs.systems?.first(where: { $0.identifier == identifier }) else { return nil }
        return Cost(outsideSystem: true, mebibytesPerHour: s.index.mebibytesPerHour,
                    indexingCPUSecondsPerHour: s.index.audioSecondsPerCPUSecond.map { 3600 / $0 }, queryCPUMilliseconds: s.batchedQueryMilliseconds)
    }

    /// "panako@dense@peakBinRadius=15" as panako@dense, peakBinRadius, 15: one parameter set to a number.
    static func split(_ identifier: String) -> (name: String, parameter: String, value: String)? {
        guard let at = identifier.lastIndex(of: "@") else { return nil }
        let setting = identifier[identifier.index(after: at)...].split(separator: "=", omittingEmptySubsequences: false)
        guard setting.count == 2, !setting[0].isEmpty, Double(setting[1]) != nil, !setting[1].contains(",") else { return nil }
        return (String(identifier[..<at]), String(setting[0]), String(setting[1]))
    }

    /// The indices of the points no other point beats: none costs as little or less and is as accurate or
    /// more, strictly better in one (a point without a cost is on no front).
    static func front(_ points: [(cost: Double?, accuracy: Double)]) -> Set<Int> {
        Set(points.indices.filter { i in
            guard let cost = points[i].cost else { return false }
            return !points.indices.contains { j in
                guard j != i, let other = points[j].cost else { return false }
                return other <= cost && points[j].accuracy >= points[i].accuracy && (other < cost || points[j].accuracy > points[i].accuracy)
            }
        })
    }

    /// The most accurate point storing at most `budget` MiB per hour at this length and condition (the
    /// cheaper one on a tie), nil when every point stores more.
    public func best(within budget: Double, length: Double, condition: String) -> Point? {
        points.filter { $0.length == length && $0.condition == condition && $0.mebibytesPerHour <= budget }
            .max { ($0.correct.value, -$0.mebibytesPerHour) < ($1.correct.value, -$1.mebibytesPerHour) }
    }
}
