import AudioIO
import Fingerprinting
import Foundation
import OutsidePrograms

/// What `fpbench bench` measures: each algorithm's best CPU seconds per file, fpcalc's in the same loop, the
/// decoding floor per rate, and each algorithm's peak memory in a process of its own (`executable fingerprint`).
public struct SpeedMeasurements {
    public var ours: [[Double]], peer: [Double], audioSeconds: [Double], bytes: [[Int]], peerAvailable: Bool
    /// CPU seconds per file of decoding and resampling alone, by decoder and rate (libsndfile's only where
    /// it reads every file), the file's own rate (decoding without resampling) included.
    public var floor: [DecodingFloor: [Double]], memory: [Int?], peerMemory: Int?
    /// Per algorithm rate, each file's floor through the library the reader chooses for it.
    public var readerFloor: [Double: [Double]]

    public struct DecodingFloor: Hashable, Comparable {
        public let decoder: DecoderLibrary
        /// nil: the file's own rate.
        public let rate: Double?
        public static func < (a: Self, b: Self) -> Bool { (a.decoder.rawValue, a.rate ?? 0) < (b.decoder.rawValue, b.rate ?? 0) }
        public var name: String { "decode @\(rate.map { String(Int($0)) } ?? "own rate") \(decoder.rawValue)" }
    }

    /// `executable` with `arguments` after the file: this fpbench and what it needs to know the algorithms
    /// (`--external`, `--set`). A file that cannot be read or fingerprinted is thrown, naming it.
    public init(_ chosen: [AnyAlgorithm], files: [String], repeats: Int, peer measurePeer: Bool, executable: String, arguments: [String],
                progress: ProgressReporter) throws {
        (ours, peer, audioSeconds, bytes, peerAvailable) = try Self.timing(chosen, files: files, repeats: repeats, peer: measurePeer, progress: progress)
        floor = try Self.decodingFloors(chosen, files: files, repeats: repeats, progress: progress)
        // Peak memory: each algorithm alone in a process of its own (`fpbench fingerprint`), the largest over the files.
        progress.start("peak memory, one process each", total: chosen.count)
        memory = chosen.map { algorithm in
            defer { progress.advance() }
            return files.compactMap { file in try? ChildRun.run(executable, ["fingerprint", "-a", algorithm.identifier, file] + arguments) }
                .filter { $0.status == 0 }.map(\.peakResidentBytes).max()
        }
        peerMemory = peerAvailable ? files.compactMap { PeerTiming.fpcalc([$0])?.peakResidentBytes?.first }.max() : nil
        progress.finish()
        // The reader's own floor: each file through the library it chooses for the file's format (FFmpeg
        // reads every file, or the timing above has stopped).
        var readerFloor: [Double: [Double]] = [:]
        for rate in Set(chosen.map(\.sampleRate)) {
            readerFloor[rate] = files.indices.map { [floor] f in
                (floor[DecodingFloor(decoder: .choice(for: files[f]), rate: rate)] ?? floor[DecodingFloor(decoder: .ffmpeg, rate: rate)]!)[f]
            }
        }
        self.readerFloor = readerFloor
    }

    /// Best CPU seconds per algorithm and file, and fpcalc's (until it fails), measured file by file, alternating.
    private static func timing(_ chosen: [AnyAlgorithm], files: [String], repeats: Int, peer measurePeer: Bool, progress: ProgressReporter) throws
        -> (ours: [[Double]], peer: [Double], audioSeconds: [Double], bytes: [[Int]], peerAvailable: Bool) {
        var ours = chosen.map { _ in [Double](repeating: .infinity, count: files.count) }
        var peer = [Double](repeating: .infinity, count: files.count)
        var audioSeconds = [Double](repeating: 0, count: files.count)
        var bytes = chosen.map { _ in [Int](repeating: 0, count: files.count) }
        var peerAvailable = measurePeer
        progress.start("timing", total: files.count * repeats)
        for (f, file) in files.enumerated() {
            for _ in 0..<repeats {
                defer { progress.advance() }
                for (a, algorithm) in chosen.enumerated() {
                    let clock = CPUClock()
                    let made: AnyFingerprint
                    do { made = try algorithm.fingerprint(file: file) } catch let error as AudioError { throw error } catch {
                        throw DatasetError(path: file, reason: "\(error)")
                    }
                    ours[a][f] = min(ours[a][f], clock.elapsed)
                    audioSeconds[f] = made.duration
                    bytes[a][f] = made.byteCount
                }
                if peerAvailable {
                    if let timing = PeerTiming.fpcalc([file]), timing.failure == nil, let cpu = timing.cpuSeconds.first {
                        peer[f] = min(peer[f], cpu)
                    } else { peerAvailable = false }
                }
            }
        }
        return (ours, peer, audioSeconds, bytes, peerAvailable)
    }

    /// The floor: decoding and resampling alone, at each distinct rate, with the same reader, streamed as the
    /// algorithms are (holding the signal would add its allocation to the floor).
    private static func decodingFloors(_ chosen: [AnyAlgorithm], files: [String], repeats: Int, progress: ProgressReporter) throws -> [DecodingFloor: [Double]] {
        var floor: [DecodingFloor: [Double]] = [:]
        let floors = DecoderLibrary.allCases.flatMap { decoder in ([nil] + Set(chosen.map(\.sampleRate)).sorted()).map { DecodingFloor(decoder: decoder, rate: $0) } }
        progress.start("decoding alone", total: floors.count * files.count)
        for key in floors {
            do {
                floor[key] = try files.map { file in
                    defer { progress.advance() }
                    return try (0..<repeats).map { _ in
                        let clock = CPUClock()
                        _ = try AudioReader.stream(file, sampleRate: key.rate, decoder: key.decoder) { _ in }
                        return clock.elapsed
                    }.min() ?? .infinity
                }
            } catch where key.decoder == .libsndfile {  // it reads fewer formats than FFmpeg
                Console.note("\(key.name): not timed (\(error))")
            }
        }
        return floor
    }
}
