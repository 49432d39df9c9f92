import Fingerprinting
import AudioIO
import Foundation

/// A stretch of a recording: a file under the dataset's audio folder and a window in it.
public struct Excerpt: Sendable, Codable, Equatable, Hashable {
    public var file: String
    public var start: Double
    public var duration: Double

    public init(file: String, start: Double, duration: Double) {
        self.file = file
        self.start = start
        self.duration = duration
    }

    public var window: TimeWindow { TimeWindow(start: start, duration: duration) }
}

/// One thing to recognise: a reference recording and, for test 2, other recordings of it.
public struct Source: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    /// `bird`, `music-reproduction`, `music-rerender`, ...: what "another recording" means for it.
    public var family: String
    public var license: String
    public var origin: String
    public var reference: Excerpt
    public var alternates: [Excerpt]
}

/// A downloaded package the dataset is built from.
public struct Archive: Sendable, Codable, Equatable {
    public var id: String
    public var kind: String
    public var package: String
    public var version: String
    public var file: String
    public var sha256: String
    public var license: String
}

/// A file of the dataset's audio folder with its checksum (extracted or rendered by the fetch script).
public struct DatasetFile: Sendable, Codable, Equatable {
    public var path: String
    public var sha256: String?
}

public struct NamedRecording: Sendable, Codable, Equatable {
    public var id: String
    public var kind: String?
    public var file: String
}

/// Whole recordings for the identification benchmark: `tracks` form the catalog, `negatives` are
/// recordings that are not in it (queries cut from them must be answered "no match"); `crossCheck`, if
/// any, recordings of another kind than the negatives (speech against music negatives), which never
/// calibrate: what the thresholds let through on audio unlike what calibrated them.
public struct CatalogSection: Sendable, Codable, Equatable {
    public var tracks: [String]
    public var negatives: [String]
    public var crossCheck: [String]?

    public init(tracks: [String], negatives: [String], crossCheck: [String]? = nil) {
        self.tracks = tracks
        self.negatives = negatives
        self.crossCheck = crossCheck
    }
}

/// The manifest (`Datasets/NAME/manifest.json`), as documented in Datasets/README.md. Every list may
/// be left out; a manifest needs sources (the thesis suite) or a catalog (the benchmark).
public struct DatasetManifest: Sendable, Codable, Equatable {
    public var name: String
    public var description: String
    public var archives: [Archive]
    public var files: [DatasetFile]
    public var renders: [DatasetFile]
    public var sources: [Source]
    public var distractors: [Excerpt]
    public var noises: [NamedRecording]
    public var impulseResponses: [NamedRecording]
    public var catalog: CatalogSection?
    /// Where the audio lives, when not in `audio/` beside the manifest (relative to the manifest's folder).
    public var audioRoot: String?

    public init(name: String, description: String, files: [DatasetFile], sources: [Source], noises: [NamedRecording],
                impulseResponses: [NamedRecording], audioRoot: String?) {
        self.name = name
        self.description = description
        archives = []
        self.files = files
        renders = []
        self.sources = sources
        distractors = []
        self.noises = noises
        self.impulseResponses = impulseResponses
        catalog = nil
        self.audioRoot = audioRoot
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        archives = try c.decodeIfPresent([Archive].self, forKey: .archives) ?? []
        files = try c.decodeIfPresent([DatasetFile].self, forKey: .files) ?? []
        renders = try c.decodeIfPresent([DatasetFile].self, forKey: .renders) ?? []
        sources = try c.decodeIfPresent([Source].self, forKey: .sources) ?? []
        distractors = try c.decodeIfPresent([Excerpt].self, forKey: .distractors) ?? []
        noises = try c.decodeIfPresent([NamedRecording].self, forKey: .noises) ?? []
        impulseResponses = try c.decodeIfPresent([NamedRecording].self, forKey: .impulseResponses) ?? []
        catalog = try c.decodeIfPresent(CatalogSection.self, forKey: .catalog)
        audioRoot = try c.decodeIfPresent(String.self, forKey: .audioRoot)
    }

    /// Fields only `scripts/fetch-dataset.sh` reads (where a file comes from, how a render is made).
    package static let fetchScriptFields: Set<String> = ["files.archive", "files.member", "files.inner", "soundSets", "renders.*", "toolVersions"]

    /// Every audio file the manifest's sections use (sources, alternates, distractors, noises, impulse
    /// responses, catalog tracks and negatives), each once, in order of first use.
    public var usedFiles: [String] {
        let all = sources.flatMap { [$0.reference.file] + $0.alternates.map(\.file) } + distractors.map(\.file)
            + noises.map(\.file) + impulseResponses.map(\.file) + (catalog.map { $0.tracks + $0.negatives + ($0.crossCheck ?? []) } ?? [])
        var seen = Set<String>()
        return all.filter { seen.insert($0).inserted }
    }
}

/// A manifest that cannot be used, naming the file and the reason.
public struct DatasetError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// A dataset on disk: its manifest and the folder its audio lives in.
public struct Dataset: Sendable {
    public var manifest: DatasetManifest
    public var manifestPath: String
    public var audioFolder: URL
    /// SHA-256 of the manifest file, recorded with results.
    public var manifestSHA256: String

    /// Loads `Datasets/NAME/manifest.json` (under `root`), or a manifest at an explicit path.
    /// Loads `Datasets/NAME/manifest.json` (under `root`), a manifest at an explicit path, a folder's
    /// `manifest.json`, or a plain folder of audio files (each file a source; see `DatasetFolder`).
    public static func load(_ nameOrPath: String, root: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) throws -> Dataset {
        var isFolder: ObjCBool = false
        if !nameOrPath.hasSuffix(".json"), FileManager.default.fileExists(atPath: nameOrPath, isDirectory: &isFolder), isFolder.boolValue {
            let inside = URL(fileURLWithPath: nameOrPath).appendingPathComponent("manifest.json").path
            if FileManager.default.fileExists(atPath: inside) { return try load(inside, root: root) }
            return try DatasetFolder.dataset(URL(fileURLWithPath: nameOrPath))
        }
        let path = nameOrPath.hasSuffix(".json") ? nameOrPath
            : root.appendingPathComponent("Datasets/\(nameOrPath)/manifest.json").path
        guard let data = RegularFile.contents(path) else {
            throw DatasetError(path: path, reason: nameOrPath.contains("/")
                ? "no such manifest or folder"
                : "no such dataset: not Datasets/\(nameOrPath)/manifest.json (scripts/fetch-dataset.sh builds the shipped ones) "
                  + "nor a folder here (any folder of audio files is a dataset: fpbench run --dataset FOLDER)")
        }
        let manifest: DatasetManifest
        do { manifest = try decodeStrictly(DatasetManifest.self, from: data, otherReaders: DatasetManifest.fetchScriptFields) } catch let error as StrictDecodingError {
            throw DatasetError(path: path, reason: "broken manifest: \(error.reason)")
        }
        try validate(manifest, path: path)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let audio = manifest.audioRoot.map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : folder.appendingPathComponent($0) }
        return Dataset(manifest: manifest, manifestPath: path, audioFolder: audio ?? folder.appendingPathComponent("audio"),
                       manifestSHA256: sha256Hex(data))
    }

    /// How to make a catalog, for messages.
    public static let catalogHelp = "A folder of tracks is a catalog when it has a negatives/ subfolder (recordings that are not in it); "
        + "or write a manifest with `fpbench dataset init --catalog TRACKS --negatives OTHERS` (Datasets/README.md)"

    public func path(_ file: String) -> String { audioFolder.appendingPathComponent(file).path }

    /// Where a noise or impulse response a test names is: the dataset's recording of that id, or an audio
    /// file's path; nil when it is neither.
    public func recordingPath(_ id: String) -> String? {
        namedRecording(id).map { path($0.file) } ?? (FileManager.default.fileExists(atPath: id) ? id : nil)
    }

    /// The manifest's noise or impulse response of that id.
    public func namedRecording(_ id: String) -> NamedRecording? { (manifest.noises + manifest.impulseResponses).first { $0.id == id } }

    /// The SHA-256 the manifest records for a file of the audio folder, if any.
    public func recordedSHA256(_ file: String) -> String? {
        (manifest.files + manifest.renders).first { $0.path == file }?.sha256
    }

    /// True when `file` is relative and, read component by component, never climbs above the folder it is read in.
    package static func staysInside(_ file: String) -> Bool {
        guard !file.isEmpty, !file.hasPrefix("/"), !file.contains("\0") else { return false }
        var depth = 0
        for part in file.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
            depth += part == ".." ? -1 : 1
            if depth < 0 { return false }
        }
        return depth > 0
    }

    package static func validate(_ m: DatasetManifest, path: String) throws {
        var seen = Set<String>()
        for source in m.sources {
            guard seen.insert(source.id).inserted else { throw DatasetError(path: path, reason: "source id '\(source.id)' appears twice") }
            for excerpt in [source.reference] + source.alternates where excerpt.duration <= 0 || excerpt.start < 0 {
                throw DatasetError(path: path, reason: "source '\(source.id)': window [\(excerpt.start), +\(excerpt.duration)) s is empty or negative")
            }
        }
        for file in m.usedFiles + (m.files + m.renders).map(\.path) where !staysInside(file) {
            throw DatasetError(path: path, reason: "'\(file)' is not a relative path inside the dataset's audio folder (absolute, "
                + "or leaving it through '..'); refused")
        }
        if m.sources.isEmpty && (m.catalog?.tracks ?? []).isEmpty {
            throw DatasetError(path: path, reason: "no sources and no catalog tracks: nothing to evaluate")
        }
        if let catalog = m.catalog {
            if let twice = Dictionary(grouping: catalog.tracks + catalog.negatives + (catalog.crossCheck ?? []), by: { $0 }).first(where: { $0.value.count > 1 })?.key {
                throw DatasetError(path: path, reason: "catalog: '\(twice)' is listed twice (a negative must not be in the catalog)")
            }
        }
    }
}


/// A JSON file read strictly: no file is `missing`; a bad value, or a field the reader would ignore, is
/// "`broken`: the field and why" (both as a `DatasetError` naming the file).
package func decodeStrictly<T: Codable>(_ type: T.Type, path: String, missing: String, broken: String) throws -> T {
    guard let data = RegularFile.contents(path) else { throw DatasetError(path: path, reason: missing) }
    do { return try decodeStrictly(T.self, from: data) } catch let error as StrictDecodingError {
        throw DatasetError(path: path, reason: "\(broken): \(error.reason)")
    }
}
