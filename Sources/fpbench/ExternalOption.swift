import ArgumentParser
import AudioIO
import Fingerprinting
import OutsidePrograms

/// `--external FILE`: algorithms defined by a configuration file (see Algorithms/chromaprint-fpcalc.json),
/// and `--set ALGORITHM.PARAMETER=VALUE`: run a variant in place of the algorithm (or of an outside system).
struct ExternalOption: ParsableArguments {
    @Option(name: .customLong("external"), help: "An external algorithm's configuration file (repeatable).")
    var files: [String] = []
    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Change a parameter: ALGORITHM.PARAMETER=VALUE (repeatable). The algorithm becomes a variant, "
            + "ALGORITHM@PARAMETER=VALUE, in every table, with its own cache entries; `fpbench algorithms` lists the parameters. "
            + "Variants can also be named directly (--algorithms constellation constellation@sampleRate=22050, or constellation@birdsong). "
            + "An outside system's settings alike (SYSTEM.NAME=VALUE, its file's \"settings\"; its index kept apart).",
        valueName: "ALGORITHM.PARAMETER=VALUE"))
    var settings: [String] = []

    /// The options as given, to pass on to a child `fpbench`.
    var arguments: [String] { files.flatMap { ["--external", $0] } + settings.flatMap { ["--set", $0] } }

    /// Every built-in algorithm, then the external ones.
    func algorithms() throws -> [AnyAlgorithm] {
        try AlgorithmRegistry.all + files.map { file in
            let external = try validated { try ExternalCommand.load(file) }
            if let program = external.missingProgram {
                throw ValidationError("\(file): its command '\(program)' is not installed (not on PATH); to install: \(external.configuration.install)")
            }
            return try validated { try external.algorithm() }
        }
    }

    /// The algorithms named by `identifiers` (all of them when it is empty; variants by their
    /// identifiers), with `--set` applied.
    func resolve(_ identifiers: [String], systems: [OutsideSystem] = []) throws -> [AnyAlgorithm] {
        let available = try algorithms()
        let chosen = identifiers.isEmpty ? available : try identifiers.map { id in
            try validated { try AlgorithmRegistry.algorithm(id, among: available) }
        }
        var changes: [String: [(name: String, value: String)]] = [:]
        for (setting, target, name, value) in try parsedSettings() where !systems.contains(where: { $0.identifier == target }) {
            guard chosen.contains(where: { $0.identifier == target }) else {
                throw ValidationError("--set \(setting): '\(target)' is not among the algorithms run (\(chosen.map(\.identifier).joined(separator: ", ")))"
                                      + (systems.isEmpty ? "" : " nor the systems (\(systems.map(\.identifier).joined(separator: ", ")))"))
            }
            changes[target, default: []].append((name, value))
        }
        return try chosen.map { algorithm in
            guard let values = changes[algorithm.identifier] else { return algorithm }
            let identifier = algorithm.identifier + "@" + values.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
            return try validated { try algorithm.variant(values, identifier: identifier) }
        }
    }

    /// The systems with the `--set` changes that name them.
    func apply(to systems: [OutsideSystem]) throws -> [OutsideSystem] {
        let parsed = try parsedSettings()
        return try systems.map { system in
            let changes = parsed.filter { $0.target == system.identifier }.map { (name: $0.name, value: $0.value) }
            return changes.isEmpty ? system : try validated { try system.variant(changes) }
        }
    }

    /// Each `--set` as written, with what it names: TARGET.NAME=VALUE (a target may be a named variant, panako@dense).
    func parsedSettings() throws -> [(setting: String, target: String, name: String, value: String)] {
        let parsed = try settings.map { setting -> (setting: String, target: String, name: String, value: String) in
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let dot = parts[0].lastIndex(of: "."), !parts[1].isEmpty, dot != parts[0].startIndex else {
                throw ValidationError("--set \(setting): write ALGORITHM.PARAMETER=VALUE, as --set constellation.fanOut=5")
            }
            return (setting, String(parts[0][..<dot]), String(parts[0][parts[0].index(after: dot)...]), parts[1])
        }
        if let twice = Dictionary(grouping: parsed, by: { "\($0.target).\($0.name)" }).first(where: { $0.value.count > 1 })?.key {
            throw ValidationError("--set \(twice) is given twice; set each parameter once")
        }
        return parsed
    }
}
