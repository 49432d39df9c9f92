import Foundation

/// Checks a dataset's files against the SHA-256 its manifest records, as every run starts. A file's
/// full check is remembered by its size and modification time (`checksums.json` in the cache folder),
/// so a second run only looks at the files that changed.
package struct ChecksumCheck {
    package struct Seen: Codable, Equatable {
        var size: Int
        var modified: Double
        var sha256: String
    }

    package let dataset: Dataset
    package let cacheFolder: URL?

    package init(dataset: Dataset, cacheFolder: URL?) {
        self.dataset = dataset
        self.cacheFolder = cacheFolder
    }

    /// One problem per file that is missing or does not match the manifest.
    package func problems() -> [Problem] {
        let store = cacheFolder?.appendingPathComponent("checksums.json")
        var seen = store.flatMap { FileManager.default.contents(atPath: $0.path) }.flatMap { try? JSONDecoder().decode([String: Seen].self, from: $0) } ?? [:]
        let before = seen
        var problems: [Problem] = []
        let fix = "fix with: scripts/fetch-dataset.sh \(dataset.manifest.name)"
        for file in dataset.manifest.files + dataset.manifest.renders {
            guard let expected = file.sha256 else { continue }
            let path = dataset.path(file.path)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = attributes[.size] as? Int, let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 else {
                problems.append(.init(item: file.path, reason: "missing; \(fix)", file: file.path))
                continue
            }
            var actual = seen[path].flatMap { $0.size == size && $0.modified == modified ? $0.sha256 : nil }
            if actual == nil {
                actual = try? sha256Hex(file: path)
                if let actual { seen[path] = Seen(size: size, modified: modified, sha256: actual) }
            }
            if actual != expected {
                problems.append(.init(item: file.path, reason: "SHA-256 differs from the manifest's (corrupted or changed); \(fix)", file: file.path))
            }
        }
        // A manifest that pins its files pins every file it uses: one it does not pin would be used unchecked.
        let pinned = Set((dataset.manifest.files + dataset.manifest.renders).filter { $0.sha256 != nil }.map(\.path))
        if !pinned.isEmpty {
            for file in dataset.manifest.usedFiles where !pinned.contains(file) {
                problems.append(.init(item: file, reason: "used by the manifest but not pinned in its files (no SHA-256); add it to files, "
                                      + "or run fpbench dataset init to record checksums", file: file))
            }
        }
        if let store, seen != before, let data = try? JSONEncoder().encode(seen) {
            try? FileManager.default.createDirectory(at: store.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? data.write(to: store, options: .atomic)
        }
        return problems
    }
}
