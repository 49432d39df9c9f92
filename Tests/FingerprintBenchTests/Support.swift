import AudioIO
import DSP
import Evaluation
import Fingerprinting
import Foundation
import Testing

/// Every test's scratch files live in one folder per test process, under the system's temporary
/// directory, removed when the process exits: a test run leaves nothing behind (it left some 60 folders,
/// up to 74 MB each, in /tmp).
enum Scratch {
    static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fpbench-tests-\(getpid())")
        try? FileManager.default.removeItem(at: url)  // a killed run's, whose process id came round again
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { Scratch.remove() }
        return url
    }()

    static func remove() { try? FileManager.default.removeItem(at: root) }

    /// A path in the scratch folder that does not exist yet (for an output a command must create).
    static func path(_ prefix: String, _ suffix: String = "") -> URL {
        root.appendingPathComponent("\(prefix)-\(UUID().uuidString)\(suffix)")
    }
}

/// A fresh folder for one test, in the test process's scratch folder.
func temporaryFolder() -> URL {
    let url = Scratch.path("test")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A sine of `frequency` Hz at `amplitude`, `duration` seconds long.
func sine(frequency: Double, amplitude: Double = 0.5, duration: Double, sampleRate: Double) -> Audio {
    let count = Int(duration * sampleRate)
    return Audio(samples: (0..<count).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / sampleRate)) },
                 sampleRate: sampleRate)
}

/// Pearson correlation of two equally long signals.
func correlation(_ a: [Float], _ b: [Float]) -> Double {
    let n = min(a.count, b.count)
    let ma = a[..<n].reduce(0.0) { $0 + Double($1) } / Double(n)
    let mb = b[..<n].reduce(0.0) { $0 + Double($1) } / Double(n)
    var sab = 0.0, saa = 0.0, sbb = 0.0
    for i in 0..<n {
        let x = Double(a[i]) - ma, y = Double(b[i]) - mb
        sab += x * y; saa += x * x; sbb += y * y
    }
    return sab / (saa * sbb).squareRoot()
}

/// The frequency of the loudest FFT bin of `audio`.
func peakFrequency(_ audio: Audio) -> Double {
    let fft = RealFFT(size: audio.samples.count)
    let spectrum = fft.spectrum(audio.samples)
    let magnitudes = spectrum.map { $0.re * $0.re + $0.im * $0.im }
    let k = magnitudes.indices.max { magnitudes[$0] < magnitudes[$1] }!
    return Double(k) * audio.sampleRate / Double(audio.samples.count)
}

/// A 32-bit float WAV file written byte by byte, so tests can store values libsndfile would refuse (NaN).
func floatWAV(_ samples: [Float], sampleRate: Int = 8000) -> Data {
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + samples.count * 4))
    data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(3)); append(UInt16(1))
    append(UInt32(sampleRate)); append(UInt32(sampleRate * 4)); append(UInt16(4)); append(UInt16(32))
    data.append(contentsOf: Array("data".utf8)); append(UInt32(samples.count * 4))
    for s in samples { append(s.bitPattern) }
    return data
}

/// The audio folder of the small real-audio test dataset (built by `scripts/fetch-dataset.sh ci`).
let testDataRoot: URL = {
    if let path = ProcessInfo.processInfo.environment["FPBENCH_TEST_DATA"] { return URL(fileURLWithPath: path) }
    return repositoryRoot.appendingPathComponent("Datasets/ci/audio")
}()

/// The repository's root folder.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `fpbench` built with these tests, beside the test runner (`scripts/test.sh` builds both in release mode).
let builtFPBench: URL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("fpbench")

/// Starts `process` with no signal blocked. Swift Testing runs tests on threads that block signals, and a
/// child inherits the mask of the thread that starts it: slurmd and munged, started so, never saw the SIGTERM
/// that stops them, and the Slurm test waited for them for ever.
func start(_ process: Process) throws {
    var none = sigset_t(), kept = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, &kept)
    defer { pthread_sigmask(SIG_SETMASK, &kept, nil) }
    try process.run()
}

/// The built `fpbench` run from the repository's root, as a user runs it: exit status, standard output and error.
func runFPBench(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = builtFPBench
    process.arguments = arguments
    process.currentDirectoryURL = repositoryRoot
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try start(process)
    // Standard error is read on another thread, so a long run's progress lines never fill its pipe.
    final class Box: @unchecked Sendable { var data = Data() }
    let err = Box(), group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { err.data = errors.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let out = output.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err.data, as: UTF8.self))
}

/// A test's real part (Slurm, Chromium, a namespace, an outside system) cannot run here: locally a skip with
/// the reason; with CI=true a failure with the reason, so CI never passes on a skipped test.
struct RealPartMissing: Error, CustomStringConvertible {
    var description: String
}

func unavailable(_ reason: String) throws -> Never {
    if ProcessInfo.processInfo.environment["CI"] == "true" { throw RealPartMissing(description: "CI=true and the real part is missing: \(reason)") }
    try Test.cancel(Comment(rawValue: reason))
}

/// A stand-in for the project's own set of recordings: a folder dataset (a tone, and noises/ID.wav: 3 s of
/// seeded uniform noise at 16 kHz), its manifest written by `DatasetFolder`, every file pinned.
func projectSetStandIn(noise id: String) throws -> Dataset {
    let folder = temporaryFolder()
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("noises"), withIntermediateDirectories: true)
    try AudioWriter.write(sine(frequency: 440, duration: 2, sampleRate: 16_000), to: folder.appendingPathComponent("tone.wav").path)
    var noise = SeededGenerator(seed: 5)
    let samples = Audio(samples: (0..<48_000).map { _ in Float.random(in: -0.3...0.3, using: &noise) }, sampleRate: 16_000)
    try AudioWriter.write(samples, to: folder.appendingPathComponent("noises/\(id).wav").path)
    try JSONEncoder().encode(try DatasetFolder.manifest(folder)).write(to: folder.appendingPathComponent("manifest.json"))
    return try Dataset.load(folder.appendingPathComponent("manifest.json").path)
}

/// A test run's settings: two threads unless said, no cache unless given, no progress, version "test".
func testSettings(_ dataset: Dataset, _ algorithms: [AnyAlgorithm], seed: UInt64, threads: Int = 2, cache: URL? = nil,
                  missing: MissingRecordingPolicy) -> RunSettings {
    RunSettings(dataset: dataset, algorithms: algorithms, seed: seed, threads: threads, cacheFolder: cache, progress: .none,
                toolVersion: "test", missingRecordings: missing)
}
