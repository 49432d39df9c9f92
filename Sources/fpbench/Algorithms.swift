import ArgumentParser
import AudioIO
import Fingerprinting

struct Algorithms: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the registered algorithms with their sample rates and parameters, each with its source.",
        discussion: "Use an identifier from this list wherever a command takes --algorithm.")

    @Flag(name: .shortAndLong, help: "Only the identifiers, one per line.")
    var quiet = false
    @OptionGroup var external: ExternalOption

    func run() throws {
        for algorithm in try external.algorithms() {
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

/// `--external FILE`: algorithms defined by a configuration file (see Algorithms/chromaprint-fpcalc.json).
struct ExternalOption: ParsableArguments {
    @Option(name: .customLong("external"), help: "An external algorithm's configuration file (repeatable).")
    var files: [String] = []

    /// Every built-in algorithm, then the external ones.
    func algorithms() throws -> [AnyAlgorithm] {
        try AlgorithmRegistry.all + files.map { file in try validated { AnyAlgorithm(try ExternalAlgorithm.load(file)) } }
    }

    /// The algorithms named by `identifiers`, all of them when it is empty.
    func resolve(_ identifiers: [String]) throws -> [AnyAlgorithm] {
        let available = try algorithms()
        if identifiers.isEmpty { return available }
        return try identifiers.map { id in
            guard let found = available.first(where: { $0.identifier == id }) else {
                throw ValidationError("unknown algorithm '\(id)'; known: \(available.map(\.identifier).joined(separator: ", "))")
            }
            return found
        }
    }
}

/// `--algorithm ID`, shared by every command that runs one algorithm.
struct AlgorithmOption: ParsableArguments {
    @Option(name: .shortAndLong, help: "Algorithm identifier (see `fpbench algorithms`).")
    var algorithm: String
    @OptionGroup var external: ExternalOption

    func resolve() throws -> AnyAlgorithm { try external.resolve([algorithm])[0] }
}
