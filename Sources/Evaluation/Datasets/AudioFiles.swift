import AudioIO
import Foundation

/// Audio files named on the command line: files, folders (searched recursively) and list files, and a
/// catalog made of them without a manifest (`fpbench index build --catalog`).
public enum AudioFiles {
    /// Each path as is when a file, or every audio file under it (sorted) when a folder; a path that
    /// does not exist, or a folder without audio, is refused.
    public static func expand(_ paths: [String]) throws -> [String] {
        let fm = FileManager.default
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isFolder) else { throw DatasetError(path: path, reason: "no such file or folder") }
            guard isFolder.boolValue else { files.append(path); continue }
            let found = (fm.enumerator(atPath: path)?.compactMap { $0 as? String } ?? [])
                .filter { DatasetFolder.audioExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
                .map { (path as NSString).appendingPathComponent($0) }
            guard !found.isEmpty else {
                throw DatasetError(path: path, reason: "no audio files (\(DatasetFolder.audioExtensions.sorted().joined(separator: ", "))) in the folder")
            }
            files += found
        }
        var seen = Set<String>()
        if let twice = files.first(where: { !seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.path).inserted }) {
            throw DatasetError(path: twice, reason: "named twice")
        }
        return files
    }

    /// A list file: one path per line (blank lines and lines starting with # skipped), relative to the
    /// list's folder unless absolute.
    public static func list(_ path: String) throws -> [String] {
        guard let text = RegularFile.contents(path).flatMap({ String(data: $0, encoding: .utf8) }) else { throw DatasetError(path: path, reason: "no such list file, or not UTF-8 text") }
        let folder = (path as NSString).deletingLastPathComponent
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !lines.isEmpty else { throw DatasetError(path: path, reason: "lists no files") }
        return lines.map { $0.hasPrefix("/") || folder.isEmpty ? $0 : (folder as NSString).appendingPathComponent($0) }
    }
}
