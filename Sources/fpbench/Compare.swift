import ArgumentParser
import AudioIO
import Fingerprinting

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two audio files: the score, the algorithm's raw figure and the offset.",
        discussion: """
        The thesis's "compare two audio files": the query (the unknown recording) is fingerprinted and \
        compared with the reference (the original); a query longer than 2 minutes is compared on its first 2, \
        as `identify` searches. The score is in 0...1 (1 = identical); the offset is \
        where the query starts in the reference, in seconds.

        Example: fpbench compare -a afa-thesis query.wav reference.wav
                 fpbench compare -a afa-thesis --query-start 2 --query-duration 4 ref.wav ref.wav
        """)

    @OptionGroup var algorithm: AlgorithmOption
    @Argument(help: "The query (unknown) recording.") var query: String
    @Argument(help: "The reference (original) recording.") var reference: String
    @Option(help: "Start of the query window, seconds.") var queryStart: Double?
    @Option(help: "Length of the query window, seconds.") var queryDuration: Double?
    @Option(help: "Start of the reference window, seconds.") var referenceStart: Double?
    @Option(help: "Length of the reference window, seconds.") var referenceDuration: Double?

    func run() throws {
        let algorithm = try algorithm.resolve()
        var queryWindow = try timeWindow(start: queryStart, duration: queryDuration)
        let queryLength = try reportingFailure(query) { try queryWindow?.duration ?? AudioReader.duration(query) }
        if queryLength > longestQuery {
            queryWindow = TimeWindow(start: queryWindow?.start ?? 0, duration: longestQuery)
            Console.warning(String(format: "fpbench compare: the query is compared on its first %@ of %.1f s", QueryLength(longestQuery).spoken, queryLength))
        }
        let referenceWindow = try timeWindow(start: referenceStart, duration: referenceDuration)
        let q = try reportingFailure(query) { try algorithm.fingerprint(file: query, window: queryWindow) }
        let r = try reportingFailure(reference) { try algorithm.fingerprint(file: reference, window: referenceWindow) }
        let result = algorithm.compare(query: q, reference: r)
        print("algorithm:  \(algorithm.identifier)")
        print("score:      \(String(format: "%.1f", 100 * result.score)) %")
        print("raw figure: \(String(format: "%g", result.rawFigure)) (\(algorithm.rawFigureName))")
        print("offset:     \(String(format: "%.3f", result.offset)) s")
    }
}
