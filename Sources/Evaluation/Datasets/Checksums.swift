import Fingerprinting
import AudioIO
import Foundation

/// Checks a dataset's files against the SHA-256 its manifest records: one set of rules for what a run
/// refuses on (`problems`, as every run starts) and what `fpbench datasets` reports (`DatasetHealth`).
/// A file's full check is remembered by its size and modification time (`checksums.json` in the cache
/// folder), so a second run only looks at the files that changed.
package struct ChecksumCheck {
    package struct Seen: Codable, Equatable {
        var size: Int
        var modified: Double
        var sha256: String
    }

    /// What is wrong with one file.
    package enum Finding: Sendable, Equatable {
        /// Listed, or used by the manifest, and not there.
        case missing(listed: Bool)
        /// Its SHA-256 differs from the manifest's.
        case changed
        /// Used by a manifest that pins its files, but not pinned itself: it would be used unchecked.
        case unpinned
    }

    package let dataset: Dataset
    package let cacheFolder: URL?

    package init(dataset: Dataset, cacheFolder: URL?) {
        self.dataset = dataset
        self.cacheFolder = cacheFolder
    }

    /// Each file's finding, in the manifest's order (listed files, then the files its sections use);
    /// `verify: false` checks only that the files are there.
    package func findings(verify: Bool = true) -> [(file: String, finding: Finding)] {
        let m = dataset.manifest, fm = FileManager.default
        let store = cacheFolder?.appendingPathComponent("checksums.json")
        var seen = store.flatMap { RegularFile.contents($0.path) }.flatMap { try? JSONDecoder().decode([String: Seen].self, from: $0) } ?? [:]
        let before = seen
        var found: [(file: String, finding: Finding)] = []
        for file in m.files + m.renders {
            let path = dataset.path(file.path)
            guard let attributes = try? fm.attributesOfItem(atPath: path) else { found.append((file.path, .missing(listed: true))); continue }
            guard verify, let expected = file.sha256,
                  let size = attributes[.size] as? Int, let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 else { continue }
            var actual = seen[path].flatMap { $0.size == size && $0.modified == modified ? $0.sha256 : nil }
            if actual == nil {
                actual = try? sha256Hex(file: path)
                if let actual { seen[path] = Seen(size: size, modified: modified, sha256: actual) }
            }
            if actual != expected { found.append((file.path, .changed)) }
        }
        // A manifest that pins its files pins every file it uses: one it does not pin would be used unchecked.
        let listed = Set((m.files + m.renders).map(\.path)), pinned = Set((m.files + m.renders).filter { $0.sha256 != nil }.map(\.path))
        for file in m.usedFiles where !pinned.contains(file) {
            if !listed.contains(file) && !fm.fileExists(atPath: dataset.path(file)) {
                found.append((file, .missing(listed: false)))
            } else if !pinned.isEmpty && fm.fileExists(atPath: dataset.path(file)) {
                found.append((file, .unpinned))
            }
        }
        if let store, seen != before, let data = try? JSONEncoder().encode(seen) {
            try? fm.createDirectory(at: store.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? data.write(to: store, options: .atomic)
        }
        return found
    }

    /// What a run refuses on: one problem per file that is missing, changed or unpinned.
    package func problems() -> [Problem] {
        let fix = "fix with: scripts/fetch-dataset.sh \(dataset.manifest.name)"
        return findings().map { file, finding in
            switch finding {
            case .missing: return .init(item: file, reason: "missing; \(fix)", file: file)
            case .changed: return .init(item: file, reason: "SHA-256 differs from the manifest's (corrupted or changed); \(fix)", file: file)
            case .unpinned:
                return .init(item: file, reason: "used by the manifest but not pinned in its files (no SHA-256); add it to files, "
                             + "or run fpbench dataset init to record checksums", file: file)
            }
        }
    }
}
