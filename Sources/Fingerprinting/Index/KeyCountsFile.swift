import Foundation

/// Stage one's output for one algorithm and one slice of a catalog split across parts: how often the
/// slice's own tracks post each key, written as an index file (`IndexFile`: checksummed header and
/// section) that holds no postings. The header names the algorithm (identifier, revision, profile) and
/// the slice's tracks, so stage two can refuse counts of another algorithm or another catalog.
public enum KeyCountsFile {
    /// `FOLDER/ALGORITHM.slice-J-of-M.keys`.
    public static func path(in folder: URL, algorithm: AnyAlgorithm, slice: Int, of count: Int) -> URL {
        folder.appendingPathComponent("\(algorithm.identifier).slice-\(slice)-of-\(count).keys")
    }

    public static func write(_ counts: KeyCounts, algorithm: AnyAlgorithm, slice: Int, of count: Int,
                             tracks: [String], durations: [Double], checksums: [String], to path: URL) throws {
        var writer = IndexFile.Writer(algorithm: algorithm, references: tracks, durations: durations, checksums: checksums, calibration: nil)
        counts.sorted.withUnsafeBufferPointer { writer.add("keyCounts", $0) }
        writer.set("slice", Double(slice))
        writer.set("slices", Double(count))
        try writer.write(to: path.path)
    }

    /// The counts of slice `slice` of `count`, checked against the algorithm and the slice's tracks.
    public static func read(_ path: URL, algorithm: AnyAlgorithm, slice: Int, of count: Int, tracks: [String]) throws -> KeyCounts {
        let opened = try open(path, algorithm: algorithm, slice: slice, of: count, tracks: tracks)
        return withExtendedLifetime(opened.reader) { KeyCounts(sorted: Array(opened.sorted)) }
    }

    /// The whole catalog's common keys from every slice's file in `folder` (`tracks[j]`: slice j's), each
    /// checked, merged from the mapped files in one pass (`KeyCounts.whole`).
    public static func whole(in folder: URL, algorithm: AnyAlgorithm, tracks: [[String]]) throws -> KeyCounts {
        let opened = try tracks.indices.map { j in
            try open(path(in: folder, algorithm: algorithm, slice: j, of: tracks.count), algorithm: algorithm, slice: j, of: tracks.count, tracks: tracks[j])
        }
        return withExtendedLifetime(opened.map(\.reader)) { KeyCounts.whole(sorted: opened.map(\.sorted)) }
    }

    /// The file mapped and checked; its sorted counts are valid while the reader lives.
    private static func open(_ path: URL, algorithm: AnyAlgorithm, slice: Int, of count: Int, tracks: [String])
        throws -> (reader: IndexFile.Reader, sorted: UnsafeBufferPointer<UInt64>) {
        guard FileManager.default.fileExists(atPath: path.path) else {
            throw IndexFileError(path: path.path, reason: "missing: stage one (`fpbench benchmark --catalog-shard \(slice)/\(count) --count-keys`) has not written it")
        }
        let again = "run stage one (`fpbench benchmark --catalog-shard \(slice)/\(count) --count-keys`) again"
        func refuse(_ reason: String) -> Error { IndexFileError(path: path.path, reason: reason + "; " + again) }
        let reader = try IndexFile.Reader(path: path.path, remedy: again), header = reader.header
        guard header.algorithm == algorithm.identifier, header.revision == algorithm.revision, header.profile == algorithm.profile.key else {
            throw refuse("counts keys of \(header.algorithm) revision \(header.revision) (\(header.profile)), not of \(algorithm.identifier) revision \(algorithm.revision)")
        }
        guard try reader.integer("slice", in: 0...10_000) == slice, try reader.integer("slices", in: 1...10_000) == count else {
            throw refuse("holds another slice than \(slice) of \(count)")
        }
        guard header.references == tracks else {
            throw refuse("was counted over other tracks (\(header.references.count), this slice has \(tracks.count))")
        }
        let sorted = try reader.array("keyCounts", of: UInt64.self)
        guard zip(sorted, sorted.dropFirst()).allSatisfy({ $0 >> 32 < $1 >> 32 }) else { throw refuse("damaged: its keys are out of order") }
        return (reader, sorted)
    }
}
