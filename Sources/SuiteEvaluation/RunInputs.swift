import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation

/// Fingerprints by algorithm and item: a reference, a test's query row, or a distractor.
struct PrintTable {
    enum Item: Hashable {
        case reference(Int)
        case query(test: Int, row: Int)
        case distractor(Int)
    }

    private let items: [Item]
    private let position: [Item: Int]
    private let results: [Result<AnyFingerprint, Error>?]

    init(algorithms: Int, items: [Item], results: [Result<AnyFingerprint, Error>?]) {
        self.items = items
        position = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($0.element, $0.offset) })
        self.results = results
    }

    subscript(algorithm: Int, item: Item) -> AnyFingerprint? {
        guard let i = position[item], case .success(let print)? = results[algorithm * items.count + i] else { return nil }
        return print
    }

    /// Each fingerprint that failed, named by its algorithm and item.
    func reportFailures(algorithms: [AnyAlgorithm], sources: [Source], tests: [Runner.PlannedTest], distractors: [Excerpt],
                        problems: inout Runner.Problems) {
        // Audio that could not be made is reported once per item, not once per algorithm.
        var reported = Set<Int>()
        for (job, result) in results.enumerated() {
            guard case .failure(let error)? = result else { continue }
            let algorithm = job / items.count
            if let failure = error as? QueryAudio.Failure {
                guard reported.insert(job % items.count).inserted else { continue }
                switch items[job % items.count] {
                case .reference(let r): problems.fail(sources[r].reference.file, failure.reason, source: sources[r].id, file: sources[r].reference.file)
                case .query(let t, let row):
                    let test = tests[t].record.definition.id, source = tests[t].record.queries[row].source
                    problems.fail("\(test)/\(source)", failure.reason, test: test, source: source)
                case .distractor(let d): problems.fail(distractors[d].file, failure.reason, file: distractors[d].file)
                }
                continue
            }
            let id = algorithms[algorithm].identifier
            switch items[job % items.count] {
            case .reference(let r):
                problems.fail("\(id): reference \(sources[r].id)", "\(error)", algorithm: id, source: sources[r].id, file: sources[r].reference.file)
            case .query(let t, let row):
                let test = tests[t].record.definition.id, source = tests[t].record.queries[row].source
                problems.fail("\(id): query \(test)/\(source)", "\(error)", algorithm: id, test: test, source: source)
            case .distractor(let d):
                problems.fail("\(id): distractor \(distractors[d].file)", "\(error)", algorithm: id, file: distractors[d].file)
            }
        }
    }
}

/// Decoded excerpts of a dataset at the working rate, each decoded once, when first needed, and kept
/// across runs (a sweep decodes once for all its levels). Thread-safe.
public final class ExcerptAudio: @unchecked Sendable {
    let dataset: Dataset
    private let lock = NSLock()
    private var decoded: [Excerpt: Once<Result<Audio, Error>>] = [:]

    public init(dataset: Dataset) { self.dataset = dataset }

    func audio(_ excerpt: Excerpt) -> Result<Audio, Error> {
        let once = lock.withLock { () -> Once<Result<Audio, Error>> in
            if let held = decoded[excerpt] { return held }
            let made = Once { Result { try AudioReader.read(self.dataset.path(excerpt.file), sampleRate: workingRate, window: excerpt.window) } }
            decoded[excerpt] = made
            return made
        }
        return once.get.mapError { QueryAudio.Failure(reason: "\($0)") }
    }
}

/// The run's queries, each cut and degraded once, when first needed.
final class QueryAudio: @unchecked Sendable {
    /// Why an input could not be made (reported once per input, not per algorithm).
    struct Failure: Error { var reason: String }

    let excerpts: ExcerptAudio
    private let queries: [[Once<Result<Audio, Error>>]]

    init(excerpts: ExcerptAudio, tests: [Runner.PlannedTest]) {
        self.excerpts = excerpts
        queries = tests.map { test in
            test.plans.map { plan in
                Once {
                    excerpts.audio(plan.excerpt).flatMap { excerpt in
                        Result { try plan.chain.apply(excerpt) }.mapError { QueryAudio.Failure(reason: "degradation failed: \($0)") }
                    }
                }
            }
        }
    }

    func query(test: Int, row: Int) -> Result<Audio, Error> { queries[test][row].get }
}
