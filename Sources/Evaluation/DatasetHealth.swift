import AudioIO
import Foundation

/// What `fpbench datasets` finds wrong with a dataset on disk, each problem named in the order found:
/// a listed file missing or not matching its SHA-256, a window longer than its file decodes to, a file the
/// manifest uses but does not list (missing) or lists without pinning it (in a manifest that pins its files).
public struct DatasetHealth: Sendable {
    public enum Kind: Sendable { case missing, corrupt, misfit }

    public private(set) var problems: [(kind: Kind, message: String)] = []

    /// `quick`: only whether the files exist, not their checksums nor the windows against decoded lengths.
    public init(_ dataset: Dataset, quick: Bool) {
        let m = dataset.manifest, fm = FileManager.default
        for file in m.files + m.renders {
            let path = dataset.path(file.path)
            if !fm.fileExists(atPath: path) {
                problems.append((.missing, "\(path): missing"))
            } else if !quick, let expected = file.sha256, (try? sha256Hex(file: path)) != expected {
                problems.append((.corrupt, "\(path): SHA-256 does not match the manifest (corrupted or changed)"))
            }
        }
        // Every window must fit in what its file really decodes to.
        var lengths: [String: Double] = [:]
        for excerpt in m.sources.flatMap({ [$0.reference] + $0.alternates }) + m.distractors
        where !quick && fm.fileExists(atPath: dataset.path(excerpt.file)) {
            if lengths[excerpt.file] == nil { lengths[excerpt.file] = (try? AudioReader.info(dataset.path(excerpt.file)))?.duration ?? 0 }
            if excerpt.start + excerpt.duration > lengths[excerpt.file]! + 1e-6 {
                problems.append((.misfit, String(format: "%@: window %@ does not fit in the %.3f s that decode", dataset.path(excerpt.file),
                                                 "\(excerpt.window)", lengths[excerpt.file]!)))
            }
        }
        // A file a section uses but the file list does not name is checked too (it has no checksum); in a
        // manifest that pins its files, such a file would be used unchecked: a problem, not a pass.
        let listed = Set((m.files + m.renders).map(\.path))
        for file in m.usedFiles where !listed.contains(file) {
            if !fm.fileExists(atPath: dataset.path(file)) {
                problems.append((.missing, "\(dataset.path(file)): missing (used by the manifest, not in its file list)"))
            } else if !listed.isEmpty {
                problems.append((.corrupt, "\(dataset.path(file)): used by the manifest but not pinned in its files (no SHA-256)"))
            }
        }
    }

    public func count(_ kind: Kind) -> Int { problems.filter { $0.kind == kind }.count }
}
