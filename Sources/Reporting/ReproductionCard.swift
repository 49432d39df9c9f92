import BenchmarkEvaluation
import Evaluation
import Foundation
import SuiteEvaluation

/// `reproduce.md`, written beside summary.md by `fpbench run` and `fpbench benchmark`: what a reader needs to
/// run a report's run again and get the same bytes (the command, fpbench's version and checkout, the
/// datasets' manifests, every algorithm's and system's settings and version, the seed and the rules that
/// derive from it) and the machine it ran on. `fpbench report` does not write it: re-rendering is not a run.
public struct ReproductionCard {
    public var tool: Tool
    public var seed: UInt64
    public var dataset: (name: String, manifestSHA256: String)
    /// Each algorithm and system with its settings (its profile's key, `name=value;...`: outside systems' versions included).
    public var algorithms: [(identifier: String, settings: String)]
    /// How the run derives what it draws and decides from the seed and the data (seed rule, calibration).
    public var rules: [String]
    /// The files a second run of the same command gives byte for byte.
    public var sameBytes: [String]

    public init(_ results: RunResults) {
        tool = results.tool
        seed = results.seed
        dataset = (results.dataset.name, results.dataset.manifestSHA256)
        algorithms = results.algorithms.map { ($0.identifier, $0.profile.key) }
        rules = ["Each query's excerpt and degradations are drawn from the seed, the source and the test (results.json keeps each query's own seed)."]
        sameBytes = ["results.json", "results.csv", "summary.md", "matrices/"]
    }

    public init(_ results: BenchmarkResults) {
        tool = results.tool
        seed = results.seed
        dataset = (results.catalog.dataset, results.catalog.manifestSHA256)
        algorithms = results.algorithms.map { ($0.identifier, $0.profile.key) }
        rules = ["Query positions and negatives are drawn from the seed; each condition's \(results.seedRule).",
                 "Thresholds are calibrated on one half of the negative recordings and checked on the other (summary.md says how)."]
        sameBytes = ["results.json", "answers.csv", "metrics.csv", "summary.md"]
    }

    /// The card, for a run of `command` (the arguments as given, the executable first).
    public func markdown(command: [String]) -> String {
        var s = "# How to run this again\n\n"
        s += "```sh\n" + command.map { Self.quoted(Self.relative($0)) }.joined(separator: " ") + "\n```\n\n"
        s += "- fpbench \(tool.version), \(Self.checkout(of: command.first ?? ""))\n"
        if let decoder = tool.decoder { s += "- decoding: \(decoder)\n" }
        s += "- dataset `\(dataset.name)`, manifest SHA-256 `\(dataset.manifestSHA256)` (`scripts/fetch-dataset.sh \(dataset.name)` builds it; a dataset with another hash is other audio)\n"
        s += "- seed \(seed)\n" + rules.map { "- \($0)\n" }.joined()
        s += "- machine: \(Self.machine) (the figures of costs.json and the page's timings depend on it; the results do not)\n\n"
        s += "The same command, from the same checkout on a dataset of the same manifest, writes "
            + sameBytes.map { "`\($0)`" }.joined(separator: ", ") + " again byte for byte, whatever the number of threads (another processor may take other code paths in the libraries, FFTW's among them, and move a last bit).\n\n"
        s += "## Algorithms and systems\n\n| name | settings (`name=value`) |\n|---|---|\n"
        for (identifier, settings) in algorithms { s += "| `\(identifier)` | " + settings.replacingOccurrences(of: "|", with: "\\|") + " |\n" }
        return s
    }

    /// A word with the current folder's absolute path taken out (`/home/me/fpbench/Reports/x` as `Reports/x`,
    /// `--out=/home/me/fpbench/x` as `--out=x`): the card names paths as a reader's checkout has them.
    static func relative(_ word: String, in folder: String = FileManager.default.currentDirectoryPath) -> String {
        word.replacingOccurrences(of: folder.hasSuffix("/") ? folder : folder + "/", with: "")
    }

    /// A word as a shell reads it back: quoted when it holds anything but safe characters.
    static func quoted(_ word: String) -> String {
        let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@+%")
        if !word.isEmpty && word.unicodeScalars.allSatisfy(safe.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The git commit of the checkout the executable was built in (the first folder above it holding
    /// Package.swift and .git), and whether its tracked files had changes; said plainly when there is none.
    static func checkout(of executable: String) -> String {
        var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            let fm = FileManager.default
            if fm.fileExists(atPath: folder.appendingPathComponent("Package.swift").path), fm.fileExists(atPath: folder.appendingPathComponent(".git").path) {
                guard let commit = git(["rev-parse", "HEAD"], in: folder), let status = git(["status", "--porcelain", "--untracked-files=no"], in: folder) else { break }
                return "commit `\(commit)`" + (status.isEmpty ? "" : " with changes to tracked files (not reproducible from the commit alone)")
            }
            folder.deleteLastPathComponent()
        }
        return "built outside a git checkout (no commit to name)"
    }

    private static func git(_ arguments: [String], in folder: URL) -> String? {
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", folder.path] + arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Cores, processor, memory and system, as the kernel reports them.
    static var machine: String {
        let info = ProcessInfo.processInfo
        let model = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
            .first { $0.hasPrefix("model name") }?.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
        return "\(info.activeProcessorCount) cores" + (model.map { ", \($0)" } ?? "")
            + String(format: ", %.0f GiB, ", Double(info.physicalMemory) / 1_073_741_824) + info.operatingSystemVersionString
    }
}
