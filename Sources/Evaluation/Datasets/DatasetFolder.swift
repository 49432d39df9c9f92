import Fingerprinting
import AudioIO
import Foundation

/// A plain folder of audio files as a dataset: each file is a source (its first `window` seconds the
/// reference); `NAME.alt.EXT` beside `NAME.EXT` is another recording of it (test 2), or a pairs file
/// says which file is another recording of which; files under `noises/` and `impulses/` become noise
/// recordings and impulse responses, named by their file names.
public enum DatasetFolder {
    /// What a folder's audio files are named (every format the decoders read: `AudioIO.Decoder`).
    package static let audioExtensions: Set<String> = ["wav", "flac", "ogg", "oga", "opus", "mp3", "m4a", "aac", "aif", "aiff", "wma", "webm", "mka"]
    /// Subfolders of a folder dataset that hold something other than its sources or tracks.
    package static let roleFolders = ["negatives", "noises", "impulses"]

    /// A pairs file: CSV lines `source,alternate` of paths relative to the folder (an optional header
    /// line, no commas in names, Windows line endings accepted); a source may have several alternates, in
    /// the file's order. A file paired with itself, or a chain (an alternate that is also a source), would
    /// silently drop a source, so each is refused with its line numbers.
    package static func pairs(_ file: URL, folder: URL) throws -> [(source: String, alternate: String)] {
        guard FileManager.default.fileExists(atPath: file.path) else { throw DatasetError(path: file.path, reason: "no such pairs file") }
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { throw DatasetError(path: file.path, reason: "cannot be read as UTF-8 text") }
        var pairs: [(line: Int, source: String, alternate: String)] = []
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            if cells.allSatisfy(\.isEmpty) || (number == 0 && ["source", "reference"].contains(cells[0].lowercased())) { continue }
            let here = "\(file.path):\(number + 1)"
            guard cells.count == 2, !cells[0].isEmpty, !cells[1].isEmpty else {
                throw DatasetError(path: here, reason: "a line is SOURCE,ALTERNATE (two file names relative to the folder), got '\(line)'")
            }
            for name in cells where !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
                throw DatasetError(path: here, reason: "'\(name)' is not in \(folder.path)")
            }
            guard cells[0] != cells[1] else { throw DatasetError(path: here, reason: "'\(cells[0])' is paired with itself") }
            pairs.append((number + 1, cells[0], cells[1]))
        }
        for pair in pairs {
            if let other = pairs.first(where: { $0.source == pair.alternate }) {
                throw DatasetError(path: "\(file.path):\(pair.line)", reason: "'\(pair.alternate)' is an alternate here and a source on line \(other.line); "
                                   + "a pairs file names each recording as a source or as an alternate, not both")
            }
            if let other = pairs.first(where: { $0.alternate == pair.alternate && $0.line < pair.line && $0.source != pair.source }) {
                throw DatasetError(path: "\(file.path):\(pair.line)", reason: "'\(pair.alternate)' is already an alternate of '\(other.source)' on line \(other.line)")
            }
        }
        return pairs.map { ($0.source, $0.alternate) }
    }

    /// The manifest of a folder, with every file's SHA-256; written by `fpbench dataset init`.
    public static func manifest(_ folder: URL, window: Double = 9, pairsFile: URL? = nil, manifestFolder: URL? = nil) throws -> DatasetManifest {
        let fm = FileManager.default
        var isFolder: ObjCBool = false
        guard fm.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw DatasetError(path: folder.path, reason: "not a folder")
        }
        func audio(in sub: String) -> [String] {
            ((try? fm.contentsOfDirectory(atPath: folder.appendingPathComponent(sub).path)) ?? [])
                .filter { audioExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted().map { sub.isEmpty ? $0 : "\(sub)/\($0)" }
        }
        let top = audio(in: "")
        guard !top.isEmpty else {
            throw DatasetError(path: folder.path, reason: "no audio files (\(audioExtensions.sorted().joined(separator: ", "))) directly in the folder")
        }
        func stem(_ file: String) -> String { ((file as NSString).lastPathComponent as NSString).deletingPathExtension }
        let id = recordingID
        func excerpt(_ file: String) throws -> Excerpt {
            let duration = try AudioReader.duration(folder.appendingPathComponent(file).path)
            return Excerpt(file: file, start: 0, duration: min(window, (duration * 1000).rounded(.down) / 1000))
        }
        let paired = try pairsFile.map { try pairs($0, folder: folder) } ?? []
        let alternates = Set(top.filter { stem($0).hasSuffix(".alt") } + paired.map(\.alternate))
        var sources: [Source] = []
        for file in top where !alternates.contains(file) {
            let named = paired.filter { $0.source == file }.map(\.alternate) + top.filter { stem($0) == stem(file) + ".alt" }
            sources.append(Source(id: id(file), name: stem(file), family: "folder", license: "", origin: folder.lastPathComponent,
                                  reference: try excerpt(file), alternates: try named.map(excerpt)))
        }
        if let unknown = paired.first(where: { !top.contains($0.source) }) {
            throw DatasetError(path: pairsFile?.path ?? "", reason: "'\(unknown.source)' is not an audio file directly in the folder, so it is no source")
        }
        let all = top + audio(in: "noises") + audio(in: "impulses") + Array(Set(paired.map(\.alternate)).subtracting(top)).sorted()
        let files = try all.map { DatasetFile(path: $0, sha256: try sha256Hex(file: folder.appendingPathComponent($0).path)) }
        return DatasetManifest(name: folder.lastPathComponent, description: "made by fpbench dataset init from \(folder.lastPathComponent)",
                               files: files, sources: sources,
                               noises: audio(in: "noises").map { NamedRecording(id: id($0), kind: nil, file: $0) },
                               impulseResponses: audio(in: "impulses").map { NamedRecording(id: id($0), kind: "room", file: $0) },
                               audioRoot: audioRoot(folder, from: manifestFolder ?? folder))
    }

    /// The manifest of a catalog for the identification benchmark: every audio file under `tracks` is a
    /// catalog track, every one under `negatives` a recording not in the catalog (both searched
    /// recursively, sorted), with their SHA-256; audio under `tracks/noises` and `tracks/impulses` become
    /// noise recordings and impulse responses, as in a suite's folder. Paths are relative to the folders'
    /// common parent (`audioRoot`, relative to `manifestFolder`). Written by `dataset init --catalog`.
    public static func catalogManifest(tracks: URL, negatives: URL, manifestFolder: URL? = nil) throws -> DatasetManifest {
        let tracks = tracks.standardizedFileURL, negatives = negatives.standardizedFileURL
        var root = tracks
        while !(negatives.path + "/").hasPrefix(root.path == "/" ? "/" : root.path + "/") { root.deleteLastPathComponent() }
        func relative(_ url: URL) -> String { String(url.path.dropFirst(root.path == "/" ? 1 : root.path.count + 1)) }
        func audio(under folder: URL, skipping: [URL] = []) throws -> [String] {
            let skipped = skipping.map { $0.path + "/" }
            return try AudioFiles.expand([folder.path]).map { URL(fileURLWithPath: $0).standardizedFileURL }
                .filter { file in !skipped.contains { file.path.hasPrefix($0) } }.map(relative)
        }
        func optional(_ folder: URL) -> [String] { FileManager.default.fileExists(atPath: folder.path) ? ((try? audio(under: folder)) ?? []) : [] }
        let special = roleFolders.map { tracks.appendingPathComponent($0) } + [negatives]
        let catalog = CatalogSection(tracks: try audio(under: tracks, skipping: special), negatives: try audio(under: negatives))
        let noises = optional(tracks.appendingPathComponent("noises")), impulses = optional(tracks.appendingPathComponent("impulses"))
        let all = catalog.tracks + catalog.negatives + noises + impulses
        let files = try all.map { DatasetFile(path: $0, sha256: try sha256Hex(file: root.appendingPathComponent($0).path)) }
        var manifest = DatasetManifest(name: tracks.lastPathComponent, description: "made by fpbench dataset init --catalog from \(tracks.lastPathComponent)",
                                       files: files, sources: [],
                                       noises: noises.map { NamedRecording(id: recordingID($0), kind: nil, file: $0) },
                                       impulseResponses: impulses.map { NamedRecording(id: recordingID($0), kind: "room", file: $0) },
                                       audioRoot: audioRoot(root, from: manifestFolder ?? root))
        manifest.catalog = catalog
        return manifest
    }

    /// A recording's id: its file name without extension, other characters than letters, digits, "-",
    /// "_" and "." replaced by "-".
    package static func recordingID(_ file: String) -> String {
        String(((file as NSString).lastPathComponent as NSString).deletingPathExtension.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "-" })
    }

    /// `folder` relative to `base` when inside it ("." for itself), else absolute.
    package static func audioRoot(_ folder: URL, from base: URL) -> String {
        let folder = folder.standardizedFileURL.path, base = base.standardizedFileURL.path
        if folder == base { return "." }
        return folder.hasPrefix(base + "/") ? String(folder.dropFirst(base.count + 1)) : folder
    }

    /// A folder as a dataset in memory (nothing written): a folder with a `negatives` subfolder is a
    /// catalog (`catalogManifest`), any other a suite's sources (`manifest`).
    package static func dataset(_ folder: URL) throws -> Dataset {
        let negatives = folder.appendingPathComponent("negatives")
        let manifest = FileManager.default.fileExists(atPath: negatives.path)
            ? try catalogManifest(tracks: folder, negatives: negatives) : try manifest(folder)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(manifest)
        try Dataset.validate(manifest, path: folder.path)
        return Dataset(manifest: manifest, manifestPath: folder.appendingPathComponent("manifest.json").path, audioFolder: folder,
                       manifestSHA256: sha256Hex(data))
    }
}
