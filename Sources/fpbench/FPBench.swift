import ArgumentParser

/// The tool's version, recorded in every result file.
let fpbenchVersion = "0.1.0"

@main
struct FPBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fpbench",
        abstract: "Compare audio-fingerprint algorithms on real audio, side by side, reproducibly.",
        discussion: """
        FingerprintBench reproduces the four tests of Brandner's thesis "Bird Recognition using Audio \
        Fingerprinting" (2013) -- cropping, a different recording, added noise, re-recorded playback -- \
        and runs them on any algorithm that implements its interface.

        Start here:
          fpbench info Datasets/ci/audio/*.wav          what is in these files?
          fpbench algorithms                            which algorithms, with which parameters (and why)?
          fpbench fingerprint -a afa-thesis FILE        fingerprint one file, print its size and speed
          fpbench compare -a afa-thesis QUERY REF       the thesis's "compare two audio files"

        Every command takes --help.
        """,
        version: fpbenchVersion,
        subcommands: [Run.self, Report.self, SweepCommand.self, CompareAlgorithms.self, Datasets.self, Info.self, Algorithms.self, FingerprintFile.self, Compare.self, Identify.self, Bench.self]
    )
}
