import Degradation
import Foundation

/// The kinds of test the thesis defined.
public enum TestKind: String, Sendable, Codable {
    /// Test 1: the query is a crop of the reference.
    case cropping
    /// Test 2: the query comes from another recording of the same source.
    case differentRecording = "different-recording"
    /// Test 3: test 1's queries with noise added.
    case addedNoise = "added-noise"
    /// Test 4: the reference played through a loudspeaker and recorded by a microphone (simulated here).
    case rerecordedPlayback = "rerecorded-playback"
}

/// Noise for test 3 or test 4: `white-uniform`, `white-gaussian`, `pink`, or a noise id from the dataset.
public struct NoiseSpec: Sendable, Codable, Equatable {
    public var kind: String
    public var level: NoiseLevel

    public init(kind: String, level: NoiseLevel) {
        self.kind = kind
        self.level = level
    }
}

/// Test 4's simulated chain. Impulse-response ids come from the dataset; nil or a missing one skips that
/// stage (recorded as skipped). Drift and delay are drawn per query from its seed.
public struct PlaybackSpec: Sendable, Codable, Equatable {
    public var loudspeaker: String?
    public var loudspeakerBand: [Double]
    public var room: String?
    public var background: NoiseSpec
    public var microphoneBand: [Double]
    /// The clock-drift factor is drawn uniformly from 1 ± this.
    public var maximumDrift: Double
    /// The delay is drawn uniformly from [0, this) seconds.
    public var maximumDelay: Double

    public static let phone = PlaybackSpec(
        loudspeaker: "cabinet-EVH-5150-III", loudspeakerBand: [150, 12_000],  // a small speaker's usable band (our choice)
        room: "greathall",
        background: NoiseSpec(kind: "pink", level: .snr(dB: 20)),  // a quiet room (our choice)
        microphoneBand: [100, 7000],  // a phone microphone's band, about 100 Hz to 7 kHz
        maximumDrift: 0.002,  // 0.2 %: cheap crystal oscillators are within ±100 ppm each; generous on purpose
        maximumDelay: 0.1)
}

/// One test of a suite: how its queries are made from the dataset.
public struct TestDefinition: Sendable, Codable, Equatable {
    public var id: String
    public var title: String
    public var kind: TestKind
    /// Query length in seconds (the thesis: 4 s).
    public var queryDuration: Double
    /// When set, crop offsets are snapped down to multiples of this many seconds.
    public var cropGrid: Double?
    public var noise: NoiseSpec?
    public var playback: PlaybackSpec?

    public init(id: String, title: String, kind: TestKind, queryDuration: Double = 4, cropGrid: Double? = nil,
                noise: NoiseSpec? = nil, playback: PlaybackSpec? = nil) {
        self.id = id
        self.title = title
        self.kind = kind
        self.queryDuration = queryDuration
        self.cropGrid = cropGrid
        self.noise = noise
        self.playback = playback
    }
}

/// A list of tests. A suite file may `extend` the built-in `thesis` suite: its tests replace the
/// built-in ones with the same id, and new ids are appended.
public struct Suite: Sendable, Codable, Equatable {
    public var name: String
    public var extends: String?
    public var tests: [TestDefinition]

    public init(name: String, extends: String? = nil, tests: [TestDefinition]) {
        self.name = name
        self.extends = extends
        self.tests = tests
    }

    /// The thesis's four tests (Brandner 2013), with test 1 twice: at seeded offsets, and on the AFA's
    /// image grid (the only crops for which its rank-order prints agree), and test 3 at both amplitudes.
    public static let thesis = Suite(name: "thesis", tests: [
        TestDefinition(id: "test1-cropping", title: "Test 1: 4 s crop at a seeded offset", kind: .cropping),
        TestDefinition(id: "test1-image-grid", title: "Test 1: 4 s crop on the AFA image grid (8,192 samples at 5,512 Hz)",
                       kind: .cropping, cropGrid: 8192.0 / 5512),
        TestDefinition(id: "test2-recordings", title: "Test 2: 4 s of a different recording", kind: .differentRecording),
        TestDefinition(id: "test3-noise-1.58", title: "Test 3: test 1 + white noise at 1.58 % of full scale (-36 dBFS)",
                       kind: .addedNoise, noise: NoiseSpec(kind: "white-uniform", level: .peak(dBFS: 20 * log10(0.0158)))),
        TestDefinition(id: "test3-noise-3.16", title: "Test 3: test 1 + white noise at 3.16 % of full scale (-30 dBFS)",
                       kind: .addedNoise, noise: NoiseSpec(kind: "white-uniform", level: .peak(dBFS: 20 * log10(0.0316)))),
        TestDefinition(id: "test4-playback", title: "Test 4: simulated loudspeaker, room, microphone, drift and delay",
                       kind: .rerecordedPlayback, playback: .phone),
    ])

    /// Reads a suite file; resolves `extends: "thesis"`.
    public static func load(_ path: String) throws -> Suite {
        guard let data = FileManager.default.contents(atPath: path) else { throw DatasetError(path: path, reason: "no such suite file") }
        var suite: Suite
        do { suite = try JSONDecoder().decode(Suite.self, from: data) } catch let error as DecodingError {
            throw DatasetError(path: path, reason: "broken suite file: \(explain(error))")
        }
        switch suite.extends {
        case nil: break
        case "thesis":
            var tests = thesis.tests
            for test in suite.tests {
                if let i = tests.firstIndex(where: { $0.id == test.id }) { tests[i] = test } else { tests.append(test) }
            }
            suite.tests = tests
        case let other?: throw DatasetError(path: path, reason: "extends unknown suite '\(other)' (only 'thesis' is built in)")
        }
        return suite
    }

    /// Only the tests whose id is in `ids` (in the suite's order); every id must exist.
    public func selecting(_ ids: [String]) throws -> Suite {
        for id in ids where !tests.contains(where: { $0.id == id }) {
            throw DatasetError(path: name, reason: "no test '\(id)'; tests: \(tests.map(\.id).joined(separator: ", "))")
        }
        return ids.isEmpty ? self : Suite(name: name, tests: tests.filter { ids.contains($0.id) })
    }
}
