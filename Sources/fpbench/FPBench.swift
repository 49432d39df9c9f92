import ArgumentParser
import AudioIO
import Foundation
import OutsidePrograms

/// The tool's version, recorded in every result file.
let fpbenchVersion = "0.1.0"

@main
struct FPBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fpbench",
        abstract: "Compare audio-fingerprint algorithms on real audio, side by side, reproducibly.",
        discussion: """
        Reproduces the four tests of Brandner's thesis "Bird Recognition using
        Audio Fingerprinting" (2013): cropping, a different recording, added
        noise, re-recorded playback, on any algorithm behind its interface.
        Every command takes --help, with examples.
        """,
        version: fpbenchVersion,
        groupedSubcommands: [
            CommandGroup(name: "Evaluate and report", subcommands: [Run.self, BenchmarkCommand.self, SweepCommand.self, CompareAlgorithms.self, Report.self]),
            CommandGroup(name: "Scale out", subcommands: [Merge.self, IndexCommand.self, Scale.self]),
            CommandGroup(name: "Look around", subcommands: [Datasets.self, DatasetCommand.self, Algorithms.self, Info.self]),
            CommandGroup(name: "One file at a time", subcommands: [Degrade.self, FingerprintFile.self, Compare.self, Identify.self, Bench.self]),
        ]
    )
}

extension FPBench {
    /// As ArgumentParser's own main, with two differences: an error is said with the usage of the subcommand
    /// that threw it (not the top level's), and a file that cannot be written (a full disk) is named with the
    /// system's reason instead of Foundation's raw error.
    static func main() {
        Orphans.reapOrphans()  // every child fpbench starts is a ChildRun: an orphan left behind is a system's daemon
        var command: ParsableCommand
        do { command = try parseAsRoot(valuesJoined(Array(CommandLine.arguments.dropFirst()))) } catch { exit(withError: error) }
        do { try command.run() } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            let path = error.userInfo[NSFilePathErrorKey] as? String ?? (error.userInfo[NSURLErrorKey] as? URL)?.path ?? "a file"
            let posix = (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code
            Console.error("\(path): cannot be written: " + (posix.map { String(cString: strerror(Int32($0))) } ?? error.localizedDescription))
            Foundation.exit(1)
        } catch let error as ValidationError {
            let usage = usageString(for: type(of: command))
            let path = usage.split(separator: " ").prefix { !"[<-".contains($0.first ?? "[") }.joined(separator: " ")
            Console.note("Error: \(error.message)\nUsage: \(usage)\n  See '\(path) --help' for more information.")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    /// `arguments` with each negative number given as a value of the option before it: joined to it (`--queries -3` as
    /// `--queries=-3`), or, after other numbers of a list (`--lengths 5 -1`), as the option once more (`--lengths 5
    /// --lengths=-1`). The argument parser takes a lone `-1` for an option and says the value is missing or the option
    /// unknown, where the option's own check says what is wrong with it. No option of fpbench is a dash and a digit;
    /// nothing after `--` is joined.
    static func valuesJoined(_ arguments: [String]) -> [String] {
        var joined: [String] = []
        var option: String?  // the last option that may take the numbers after it
        var ended = false
        for argument in arguments {
            ended = ended || argument == "--"
            let number = Double(argument) != nil
            if !ended, number, argument.hasPrefix("-"), let option {
                joined.append(joined.last == option ? joined.removeLast() + "=" + argument : option + "=" + argument)
                continue
            }
            if argument.hasPrefix("--"), argument.count > 2, !argument.contains("=") {
                option = argument
            } else if !number {
                option = nil
            }
            joined.append(argument)
        }
        return joined
    }
}
