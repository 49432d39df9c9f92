import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation

/// Runs every algorithm on every test of a suite, in named phases: measure each excerpt from its
/// header → load the recordings the tests name → plan the queries → fingerprint through the cache
/// (decoding an excerpt, or cutting and degrading a query, once and only when a fingerprint is
/// missing) → compare into similarity matrices → search each algorithm's catalog → assemble the results.
/// A failing item is recorded with its reason and left out; it never stops the run.
public struct Runner {
    let configuration: RunConfiguration
    /// Decoded excerpts shared across runs (a sweep's levels); nil decodes afresh.
    let excerptAudio: ExcerptAudio?

    public init(_ configuration: RunConfiguration, excerptAudio: ExcerptAudio? = nil) {
        self.configuration = configuration
        self.excerptAudio = excerptAudio
    }

    /// What went wrong or was left out, as the phases go.
    struct Problems {
        var failures: [Problem] = []
        var skipped: [Problem] = []
        mutating func fail(_ item: String, _ reason: String, algorithm: String? = nil, test: String? = nil, source: String? = nil, file: String? = nil) {
            failures.append(.init(item: item, reason: reason, algorithm: algorithm, test: test, source: source, file: file))
        }
        mutating func skip(_ item: String, _ reason: String, test: String? = nil, source: String? = nil) {
            skipped.append(.init(item: item, reason: reason, test: test, source: source))
        }
    }

    /// One test's queries: their records and their plans (row by row).
    struct PlannedTest {
        var record: RunResults.TestRecord
        var plans: [QueryPlanner.Plan]
    }

    public func run() -> RunResults {
        var c = configuration
        let suite = c.suite
        if let shard = c.shard { c.suite.tests = suite.tests.indices.filter(shard.includes).map { suite.tests[$0] } }
        var results = Runner(c, excerptAudio: excerptAudio).runAll()
        // Problems follow the suite's order of tests (those of no test first), so parts merge into the same list.
        let position = Dictionary(uniqueKeysWithValues: suite.tests.enumerated().map { ($0.element.id, $0.offset) })
        func ordered(_ problems: [Problem]) -> [Problem] {
            problems.enumerated().sorted { (position[$0.element.test ?? ""] ?? -1, $0.offset) < (position[$1.element.test ?? ""] ?? -1, $1.offset) }.map(\.element)
        }
        results.skipped = ordered(results.skipped)
        results.failures = ordered(results.failures)
        return c.shard.map { results.keyed($0, definition: definition(suite)) } ?? results
    }

    /// What defines a sharded run beyond the fields its parts share: the whole suite, whether catalogs are
    /// searched, the missing-recording policy, the algorithms' revisions.
    private func definition(_ suite: Suite) -> String {
        let c = configuration, encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return "catalogs \(c.searchCatalogs)|recordings \(c.missingRecordings.rawValue)"
            + c.algorithms.map { "|\($0.identifier):r\($0.revision)" }.joined()
            + "|" + ((try? encoder.encode(suite)).map { String(decoding: $0, as: UTF8.self) } ?? suite.name)
    }

    private func runAll() -> RunResults {
        let c = configuration
        let progress = ProgressReporter(c.progress)
        var problems = Problems()
        problems.failures = ChecksumCheck(dataset: c.dataset, cacheFolder: c.cacheFolder).problems()
        let durations = measureExcerpts(&problems)
        let sources = c.dataset.manifest.sources.filter { source in
            if durations[source.reference] != nil { return true }
            problems.fail("source \(source.id)", "its reference could not be read; left out of every test", source: source.id, file: source.reference.file)
            return false
        }
        let recordings = loadRecordings(&problems)
        let tests = planQueries(sources: sources, durations: durations,
                                planner: QueryPlanner(seed: c.seed, context: recordings.context(c.missingRecordings)), problems: &problems)
        let distractors = c.dataset.manifest.distractors.filter { durations[$0] != nil }
        let audio = QueryAudio(excerpts: excerptAudio ?? ExcerptAudio(dataset: c.dataset), tests: tests)
        let prints = fingerprint(sources: sources, tests: tests, distractors: distractors, audio: audio, progress: progress)
        prints.reportFailures(algorithms: c.algorithms, sources: sources, tests: tests, distractors: distractors, problems: &problems)
        let matrices = compare(prints, sources: sources, tests: tests, progress: progress)
        keepAudio(tests, sources: sources, matrices: matrices, audio: audio, progress: progress, problems: &problems)
        var catalogs: [RunResults.CatalogResult] = []
        if c.searchCatalogs && !distractors.isEmpty {
            do { catalogs = try searchCatalogs(prints, sources: sources, tests: tests, distractors: distractors, progress: progress) } catch {
                problems.fail("catalog search", "\(error)")
            }
        }
        let pairs = measurePairs(sources: sources, durations: durations, audio: audio.excerpts, problems: &problems)
        progress.finish()
        var results = assemble(prints, sources: sources, tests: tests.map(\.record), matrices: matrices, catalogs: catalogs, problems: problems)
        results.pairs = pairs
        results.dataset.borrowed = recordings.borrowed.isEmpty ? nil : recordings.borrowed
        return results
    }

    // MARK: Measure

    /// The length, at the working rate, of every excerpt the suite needs (references, the recordings
    /// tests cut from, distractors), from the files' headers: nothing is decoded before it is needed.
    private func measureExcerpts(_ problems: inout Problems) -> [Excerpt: Double] {
        let c = configuration
        let needed = Set(c.dataset.manifest.sources.flatMap { source in [source.reference] + c.suite.tests.compactMap { $0.recipe.excerpt(of: source) } }
                         + c.dataset.manifest.distractors).sorted { ($0.file, $0.start) < ($1.file, $1.start) }
        var durations: [Excerpt: Double] = [:]
        for excerpt in needed {
            do {
                durations[excerpt] = Double(try AudioReader.sampleCount(c.dataset.path(excerpt.file), sampleRate: workingRate,
                                                                        window: excerpt.window)) / workingRate
            } catch { problems.fail(excerpt.file, "\(error)", file: excerpt.file) }
        }
        return durations
    }

    // MARK: Recordings

    /// Noise recordings and impulse responses the tests name, by the run's policy (`RunRecordings`): a run that
    /// refuses was checked before it started (`RunConfiguration.checked`); otherwise a stage whose recording is
    /// missing is left out, said next to each test that names it and marked in its record.
    private func loadRecordings(_ problems: inout Problems) -> RunRecordings {
        let c = configuration
        let recordings = RunRecordings(c.suite.tests.flatMap(\.recipe.recordings), dataset: c.dataset, policy: c.missingRecordings,
                                       projectSet: c.projectSet)
        for test in c.suite.tests {
            for id in test.recipe.recordings where recordings.audio[id] == nil {
                problems.skip(test.id, "'\(id)' \(recordings.missing[id] ?? "is missing"): the stage that uses it is left out", test: test.id)
            }
        }
        return recordings
    }

    // MARK: Plan and degrade

    private func planQueries(sources: [Source], durations: [Excerpt: Double], planner: QueryPlanner, problems: inout Problems) -> [PlannedTest] {
        configuration.suite.tests.map { test in
            let leftOut = test.recipe.recordings.filter { planner.context.leavesOut([$0]) }
            var result = PlannedTest(record: RunResults.TestRecord(definition: test, queries: [], stagesLeftOut: leftOut.isEmpty ? nil : leftOut),
                                     plans: [])
            let draws = sources.flatMap { source in (0..<configuration.queriesPerSource).map { (source, $0) } }
            for (source, draw) in draws {
                let item = "\(test.id)/\(source.id)" + (draw == 0 ? "" : " #\(draw + 1)")
                do {
                    switch try planner.plan(test, source: source, draw: draw, excerptDuration: { durations[$0] ?? 0 }) {
                    case .planned(let plan) where durations[plan.excerpt] == nil:
                        problems.fail(item, "\(plan.excerpt.file) could not be read", test: test.id, source: source.id, file: plan.excerpt.file)
                    case .planned(let plan):
                        result.record.queries.append(.init(source: source.id, draw: configuration.queriesPerSource > 1 ? draw : nil,
                                                           excerpt: plan.excerpt, seed: plan.chain.seed,
                                                           degradations: plan.chain.records, simulated: plan.simulated))
                        result.plans.append(plan)
                    case .skipped(let reason) where draw == 0: problems.skip(item, reason, test: test.id, source: source.id)
                    case .skipped: break  // said once, for the first draw
                    }
                } catch {
                    problems.fail(item, "\(error)", test: test.id, source: source.id)
                }
            }
            return result
        }
    }
}
