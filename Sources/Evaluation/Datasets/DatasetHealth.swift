import AudioIO
import Foundation

/// What `fpbench datasets` finds wrong with a dataset on disk, each problem named in the order found: the
/// files by the rules a run refuses on (`ChecksumCheck`: missing, not matching its SHA-256, used but not
/// pinned in a manifest that pins its files), then each window longer than its file decodes to.
public struct DatasetHealth: Sendable {
    public enum Kind: Sendable { case missing, corrupt, misfit }

    public private(set) var problems: [(kind: Kind, message: String)] = []

    /// `quick`: only whether the files exist, not their checksums nor the windows against decoded lengths.
    /// The files are checked by the rules a run refuses on (`ChecksumCheck`), without its cache: every byte is read.
    public init(_ dataset: Dataset, quick: Bool) {
        for (file, finding) in ChecksumCheck(dataset: dataset, cacheFolder: nil).findings(verify: !quick) {
            let path = dataset.path(file)
            switch finding {
            case .missing(listed: true): problems.append((.missing, "\(path): missing"))
            case .missing(listed: false): problems.append((.missing, "\(path): missing (used by the manifest, not in its file list)"))
            case .changed: problems.append((.corrupt, "\(path): SHA-256 does not match the manifest (corrupted or changed)"))
            case .unpinned: problems.append((.corrupt, "\(path): used by the manifest but not pinned in its files (no SHA-256)"))
            }
        }
        // Every window must fit in what its file really decodes to.
        let m = dataset.manifest, fm = FileManager.default
        var lengths: [String: Double] = [:]
        for excerpt in m.sources.flatMap({ [$0.reference] + $0.alternates }) + m.distractors
        where !quick && fm.fileExists(atPath: dataset.path(excerpt.file)) {
            if lengths[excerpt.file] == nil { lengths[excerpt.file] = (try? AudioReader.info(dataset.path(excerpt.file)))?.duration ?? 0 }
            if excerpt.start + excerpt.duration > lengths[excerpt.file]! + 1e-6 {
                problems.append((.misfit, String(format: "%@: window %@ does not fit in the %.3f s that decode", dataset.path(excerpt.file),
                                                 "\(excerpt.window)", lengths[excerpt.file]!)))
            }
        }
    }

    public func count(_ kind: Kind) -> Int { problems.filter { $0.kind == kind }.count }
}
