import ArgumentParser
import BenchmarkEvaluation
import Foundation
@testable import fpbench
import Testing

/// Every complete command the documentation shows (the fenced blocks of the README, Datasets/README.md and
/// docs/, and inline commands with options and no placeholder) parses as written: its subcommand, options
/// and values exist and pass validation. `$A` stands for algorithms (or the options naming them), `J/4` for
/// a slice; a renamed option or a dropped subcommand fails here.
@Suite struct DocumentedCommandTests {
    /// CITATION.cff (how to cite the tool) names the version this fpbench is.
    @Test func theCitationNamesThisVersion() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("CITATION.cff"), encoding: .utf8)
        #expect(text.split(separator: "\n").contains("version: \(fpbenchVersion)"), "CITATION.cff's version is not \(fpbenchVersion)")
    }

    /// docs/commands.md's synopsis of the benchmark shows its defaults as the example values.
    @Test func theBenchmarkSynopsisShowsTheDefaults() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/commands.md"), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("$B benchmark [") })
        func shown(_ option: String) -> String? {
            line.firstMatch(of: try! Regex("\\[--\(option) ([^\\]]+)\\]")).flatMap { $0.output[1].substring.map(String.init) }
        }
        let spec = BenchmarkSpec()
        #expect(shown("lengths") == spec.queryLengths.map { String(format: "%g", $0) }.joined(separator: " "))
        #expect(shown("queries") == String(spec.queriesPerLength))
        #expect(shown("negatives") == String(spec.negativesPerLength))
    }

    /// The commands in fenced blocks (continuation lines joined, comments dropped) and inline ones, with their file.
    static func documentedCommands() throws -> [(file: String, arguments: [String])] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("docs").path).filter { $0.hasSuffix(".md") }.sorted()
        var commands: [(String, [String])] = []
        for file in ["README.md", "Datasets/README.md"] + docs.map({ "docs/" + $0 }) {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8)
            var inBlock = false, pending = ""
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inBlock.toggle(); continue }
                guard inBlock else { continue }
                var text = String(line).trimmingCharacters(in: .whitespaces)
                if pending.isEmpty {
                    for prefix in ["$ ", ".build/release/", ".build/debug/"] where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
                    guard text.hasPrefix("fpbench ") else { continue }
                }
                pending += " " + text
                if pending.hasSuffix("\\") { pending.removeLast(); continue }
                let command = pending.split(separator: "#", maxSplits: 1)[0].filledIn
                pending = ""
                commands.append((file, words(command).dropFirst().map { $0 == "J/4" ? "0/4" : $0 }))
            }
            for match in text.matches(of: /`(?:\.build\/release\/)?fpbench ([^`]*)`/) {
                let command = match.1.replacingOccurrences(of: "\n", with: " ").filledIn
                let arguments = words(command).map { $0 == "J/4" ? "0/4" : $0 }
                // A fragment, or a placeholder (FILE, I/N, ...) to fill in: not a command to run as written.
                guard arguments.contains(where: { $0.hasPrefix("--") }), !command.contains("..."),
                      !arguments.contains(where: { $0.count > 0 && $0.allSatisfy { $0.isUppercase || $0 == "/" } }) else { continue }
                commands.append((file, arguments))
            }
        }
        return commands
    }

    /// Shell words: split on spaces outside single or double quotes.
    static func words(_ text: String) -> [String] {
        var words: [String] = [], current = "", quote: Character?
        for c in text {
            if let q = quote { if c == q { quote = nil } else { current.append(c) } } else if c == "'" || c == "\"" { quote = c } else if c == " " {
                if !current.isEmpty { words.append(current); current = "" }
            } else { current.append(c) }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    @Test func everyDocumentedCommandParses() throws {
        let commands = try Self.documentedCommands()
        #expect(commands.count >= 30, "found \(commands.count)")
        for (file, arguments) in commands {
            do { _ = try FPBench.parseAsRoot(arguments) } catch {
                Issue.record("\(file): fpbench \(arguments.joined(separator: " ")): \(FPBench.message(for: error))")
            }
        }
        // The check has teeth: a misspelt option and an unknown subcommand are refused.
        #expect(throws: (any Error).self) { try FPBench.parseAsRoot(["run", "--algorithm", "constellation"]) }
        #expect(throws: (any Error).self) { try FPBench.parseAsRoot(["sweeps", "noise"]) }
    }
}

extension StringProtocol {
    /// `$A` filled in: an algorithm after --algorithms, else the option with it.
    var filledIn: String {
        replacingOccurrences(of: "--algorithms $A", with: "--algorithms constellation").replacingOccurrences(of: "$A", with: "--algorithms constellation")
    }
}
