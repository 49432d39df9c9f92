import ArgumentParser
import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation

struct Degrade: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "degrade",
        abstract: "Degrade one audio file with a chain of stages, as the suite and the benchmark degrade queries.",
        discussion: """
        Reads the file at the working rate (\(Int(workingRate)) Hz, mono), applies the stages in order with one \
        generator seeded by --seed (the same units, values and checks as a suite file's or a benchmark \
        condition's "stages"), resamples to --rate and writes a WAV or FLAC. A stage that names a noise or \
        impulse response takes it from --dataset (else the project's own set, checked against its checksums). \
        The training of the learned fingerprint makes its augmented copies this way, at seeds the benchmark \
        never uses (scripts/train_nafp_small.py).

        Example: fpbench degrade song.ogg -o noisy.wav --stages '[{"noise": {"kind": "pink", "level": {"snr": {"dB": 5}}}}]' --seed 7 --rate 8000
        """)

    @Argument(help: "The audio file.") var file: String
    @Option(name: .shortAndLong, help: "The degraded audio (.wav or .flac).") var output: String
    @Option(help: "The stages as a JSON array, e.g. '[{\"room\": {\"rt60\": 0.6}}, {\"lowpass\": {\"hz\": 4000}}]' (empty: none).")
    var stages = "[]"
    @Option(help: "Seed of the chain's random choices.") var seed: UInt64 = 1
    @Option(help: "Sample rate of the output in Hz (default: the working rate).") var rate: Double = workingRate
    @Option(help: "Dataset whose noises and impulse responses the stages name (default: the project's own).") var dataset: String?

    func validate() throws {
        guard rate >= 1000, rate <= 192_000 else { throw ValidationError("--rate must be 1,000 to 192,000 Hz, got \(rate)") }
        _ = try parsedStages()
    }

    func parsedStages() throws -> [StageSpec] {
        do { return try decodeStrictly([StageSpec].self, from: Data(stages.utf8)) } catch {
            throw ValidationError("--stages: \(error)")
        }
    }

    func run() throws {
        let specs = try parsedStages()
        let ids = specs.flatMap(\.recordings)
        var context = StageContext(recordings: [:])
        if !ids.isEmpty {
            let set = try dataset.map { try Dataset.load($0) } ?? RunRecordings.projectSet()
            guard let set else { throw ValidationError("the stages name \(ids.joined(separator: ", ")): give --dataset (no project dataset is fetched)") }
            let recordings = RunRecordings(ids, dataset: set, policy: .borrow)
            if let (id, why) = recordings.missing.first { throw ValidationError("\(id): \(why)") }
            context = recordings.context(.refuse)
        }
        let chain = DegradationChain(try validated { try specs.flatMap { try $0.stages(context) } }, seed: seed)
        try reportingFailure(file) {
            let audio = try AudioReader.read(file, sampleRate: workingRate)
            let degraded = try chain.apply(audio).resampled(to: rate, label: file)
            guard !degraded.samples.isEmpty else {
                throw ValidationError(String(format: "the stages leave no audio of its %.3f s (a skip or crop as long as the file?); nothing written", audio.duration))
            }
            try AudioWriter.write(degraded, to: output)
        }
    }
}
