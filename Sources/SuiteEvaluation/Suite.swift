import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation

/// One test of a suite: its id and title, the query length and crop grid every test shares, and the
/// recipe of its kind (the kind's own fields sit beside `kind` in the suite file).
public struct TestDefinition: Sendable, Codable, Equatable {
    public var id: String
    public var title: String
    public var recipe: any QueryRecipe
    /// Query length in seconds (the thesis: 4 s).
    public var queryDuration: Double
    /// When set, crop offsets are snapped down to multiples of this many seconds.
    public var cropGrid: Double?

    public init(id: String, title: String, recipe: any QueryRecipe, queryDuration: Double = 4, cropGrid: Double? = nil) {
        self.id = id
        self.title = title
        self.recipe = recipe
        self.queryDuration = queryDuration
        self.cropGrid = cropGrid
    }

    /// The kind's name in suite files.
    public var kind: String { type(of: recipe).kind }

    enum CodingKeys: String, CodingKey { case id, title, kind, queryDuration, cropGrid }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        title = try c.decode(String.self, forKey: .title)
        queryDuration = try c.decodeIfPresent(Double.self, forKey: .queryDuration) ?? 4
        cropGrid = try c.decodeIfPresent(Double.self, forKey: .cropGrid)
        let kind = try c.decode(String.self, forKey: .kind)
        guard let recipeType = QueryRecipes.all.first(where: { $0.kind == kind }) else {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription:
                "unknown kind '\(kind)'; known: \(QueryRecipes.all.map { $0.kind }.joined(separator: ", "))")
        }
        recipe = try recipeType.init(from: decoder)
        guard SafeName.check(id) else {
            throw DecodingError.dataCorruptedError(forKey: .id, in: c, debugDescription: "'\(id)' is not a safe file name (\(SafeName.rule))")
        }
        guard queryDuration > 0 && queryDuration <= 600 else {
            throw DecodingError.dataCorruptedError(forKey: .queryDuration, in: c, debugDescription: "must be above 0 and at most 600 s, got \(queryDuration)")
        }
        if let grid = cropGrid, !(grid > 0 && grid <= 600) {
            throw DecodingError.dataCorruptedError(forKey: .cropGrid, in: c, debugDescription: "must be above 0 and at most 600 s, got \(grid)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(kind, forKey: .kind)
        try c.encode(queryDuration, forKey: .queryDuration)
        try c.encodeIfPresent(cropGrid, forKey: .cropGrid)
        try recipe.encode(to: encoder)
    }

    public static func == (a: TestDefinition, b: TestDefinition) -> Bool {
        a.id == b.id && a.title == b.title && a.queryDuration == b.queryDuration && a.cropGrid == b.cropGrid && a.recipe.isEqual(b.recipe)
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
    /// image grid (the only crops for which its rank-order prints agree), test 2 also on the harder second
    /// alternates where a dataset has them, and test 3 at both amplitudes.
    public static let thesis = Suite(name: "thesis", tests: [
        TestDefinition(id: "test1-cropping", title: "Test 1: 4 s crop at a seeded offset", recipe: Cropping()),
        TestDefinition(id: "test1-image-grid", title: "Test 1: 4 s crop on the AFA image grid (8,192 samples at 5,512 Hz)",
                       recipe: Cropping(), cropGrid: 8192.0 / 5512),
        TestDefinition(id: "test2-recordings", title: "Test 2: 4 s of a different recording", recipe: DifferentRecording()),
        TestDefinition(id: "test2-second-synth", title: "Test 2, harder pairs: 4 s of a second alternate (another synthesizer and sound set)",
                       recipe: DifferentRecording(alternate: 2)),
        TestDefinition(id: "test3-noise-1.58", title: "Test 3: test 1 + white noise at 1.58 % of full scale (-36 dBFS)",
                       recipe: AddedNoise(noise: NoiseSpec(kind: .whiteUniform, level: .peak(dBFS: 20 * log10(0.0158))))),
        TestDefinition(id: "test3-noise-3.16", title: "Test 3: test 1 + white noise at 3.16 % of full scale (-30 dBFS)",
                       recipe: AddedNoise(noise: NoiseSpec(kind: .whiteUniform, level: .peak(dBFS: 20 * log10(0.0316))))),
        TestDefinition(id: "test4-playback", title: "Test 4: simulated loudspeaker, room, microphone, drift and delay",
                       recipe: RerecordedPlayback(playback: .phone)),
    ])

    /// The most tests a suite file may hold: about 0.7 GB of queries and matrices at the suite's sizes.
    public static let maximumTests = 1000

    /// Reads a suite file; resolves `extends: "thesis"`; test ids must be unique.
    public static func load(_ path: String) throws -> Suite {
        var suite = try decodeStrictly(Suite.self, path: path, missing: "no such suite file", broken: "broken suite file")
        if suite.tests.count > maximumTests {
            throw DatasetError(path: path, reason: "\(suite.tests.count) tests; a suite holds at most \(maximumTests) (each keeps its queries' audio and matrices in memory, about 0.7 MB)")
        }
        if let twice = Dictionary(grouping: suite.tests, by: \.id).first(where: { $0.value.count > 1 })?.key {
            throw DatasetError(path: path, reason: "test id '\(twice)' appears twice (each test writes its own matrix files)")
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
