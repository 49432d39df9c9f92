import ArgumentParser
import AudioIO
import Fingerprinting

struct Algorithms: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the registered algorithms with their sample rates and parameters, each with its source.",
        discussion: "Use an identifier from this list wherever a command takes --algorithm.")

    @Flag(name: .shortAndLong, help: "Only the identifiers, one per line.")
    var quiet = false

    func run() {
        for algorithm in AlgorithmRegistry.all {
            if quiet { print(algorithm.identifier); continue }
            print("\(algorithm.identifier): \(algorithm.displayName)")
            print("  input: mono at \(Int(algorithm.sampleRate)) Hz, at least \(String(format: "%.3f", algorithm.minimumDuration)) s")
            print("  raw figure: \(algorithm.rawFigureName)")
            for parameter in algorithm.profile.parameters {
                print("  \(parameter.name) = \(parameter.value)")
                print("      source: \(parameter.source)")
            }
            print()
        }
    }
}

/// `--algorithm ID`, shared by every command that runs one algorithm.
struct AlgorithmOption: ParsableArguments {
    @Option(name: .shortAndLong, help: "Algorithm identifier (see `fpbench algorithms`).")
    var algorithm: String

    func resolve() throws -> AnyAlgorithm {
        do { return try AlgorithmRegistry.algorithm(algorithm) } catch { throw ValidationError("\(error)") }
    }
}
