import ArgumentParser
import AudioIO
import Fingerprinting

struct Algorithms: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "algorithms",
        abstract: "List the registered algorithms with their sample rates and parameters, each with its source.",
        discussion: """
        Use an identifier from this list wherever a command takes --algorithm or --algorithms. A variant \
        changes parameters: ALGORITHM@PARAMETER=VALUE[,PARAMETER=VALUE] as an identifier, or --set \
        ALGORITHM.PARAMETER=VALUE on any command; named variants (constellation@birdsong) are listed last.

        "kind" says what its sub-fingerprints are: 32-bit words, hashes at times, vectors at times (the \
        three kinds an external algorithm can be, docs/algorithms.md), or a kind of its own. \
        "can" lists what an algorithm does beyond fingerprinting and comparing: indexed (searches its own \
        index, else brute force), sliceable (a catalog can be held as slices: --catalog-shard, scale \
        --slices), scalable (keyed fingerprints for `fpbench scale`), streaming (fingerprints as a file \
        decodes), time-factor (finds a query played faster or slower), variants (takes --set).

        Examples: fpbench algorithms --quiet
                  fpbench run --algorithms constellation constellation@sampleRate=22050 --tests test1-cropping
                  fpbench benchmark --algorithms constellation --set constellation.fanOut=5
        """)

    @Flag(name: .shortAndLong, help: "Only the identifiers, one per line.")
    var quiet = false
    @OptionGroup var external: ExternalOption

    func run() throws {
        let named = try AlgorithmRegistry.namedVariants.map { try AlgorithmRegistry.algorithm($0.identifier) }
        for algorithm in try external.resolve([]) + named {
            if quiet { print(algorithm.identifier); continue }
            print("\(algorithm.identifier): \(algorithm.displayName)")
            print("  input: mono at \(Int(algorithm.sampleRate)) Hz, at least \(String(format: "%.3f", algorithm.minimumDuration)) s")
            print("  kind: \(algorithm.kind)")
            print("  raw figure: \(algorithm.rawFigureName)")
            print("  can: \(algorithm.capabilities.names.isEmpty ? "none beyond fingerprinting and comparing" : algorithm.capabilities.names.joined(separator: ", "))")
            if let variant = AlgorithmRegistry.namedVariants.first(where: { $0.identifier == algorithm.identifier }) {
                print("  a named variant of \(variant.base): \(variant.why)")
            }
            for parameter in algorithm.profile.parameters {
                print("  \(parameter.name) = \(parameter.value)")
                print("      source: \(parameter.source)")
            }
            if !algorithm.settable.isEmpty { print("  --set \(algorithm.identifier.prefix { $0 != "@" }).NAME=VALUE takes: \(algorithm.settable.joined(separator: ", "))") }
            print()
        }
    }
}

/// `--algorithm ID`, shared by every command that runs one algorithm.
/// Options naming algorithms: help and shell completion list the registry's identifiers and named variants.
enum AlgorithmNames {
    static var all: [String] { AlgorithmRegistry.identifiers + AlgorithmRegistry.namedVariants.map(\.identifier) }
    static func help(_ text: String) -> ArgumentHelp {
        ArgumentHelp("\(text) Built in: \(all.joined(separator: ", ")); a variant: ALGORITHM@PARAMETER=VALUE; an external algorithm: its identifier, with --external FILE (`fpbench algorithms` lists each one's parameters).")
    }
    static var completion: CompletionKind { .list(all) }
}

struct AlgorithmOption: ParsableArguments {
    @Option(name: .shortAndLong, help: AlgorithmNames.help("The algorithm."), completion: AlgorithmNames.completion)
    var algorithm: String
    @OptionGroup var external: ExternalOption

    func resolve() throws -> AnyAlgorithm { try external.resolve([algorithm])[0] }
}
