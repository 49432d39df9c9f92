import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private folder under the temporary directory for one piece of work, named `fpbench-KIND-PID-UUID` so a
/// later process can tell whose it was. The first folder a process makes sweeps away those of processes that
/// no longer run (a killed run's leftovers: queries written for an outside system, a child's captured output).
public enum ScratchFolder {
    public static func make(_ kind: String) throws -> URL {
        _ = swept
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fpbench-\(kind)-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private static let swept: Void = sweepLeftovers()

    /// Removes every `fpbench-KIND-PID-UUID` folder whose process is gone. Only that exact shape: a folder
    /// named `fpbench-test-UUID` whose UUID happens to start with eight digits is someone else's, not a leftover.
    public static func sweepLeftovers(in parent: URL = FileManager.default.temporaryDirectory) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix("fpbench-") {
            let parts = name.split(separator: "-", maxSplits: 3)
            guard parts.count == 4, let pid = pid_t(parts[2]), pid > 0, UUID(uuidString: String(parts[3])) != nil,
                  kill(pid, 0) == -1, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
    }
}
