import Fingerprinting
import AudioIO
import Degradation
import Foundation

/// What a run does when a stage names a recording (a noise, an impulse response) its dataset lacks or
/// cannot read. One policy for the suite, the benchmark and the sweeps that run on them.
public enum MissingRecordingPolicy: String, Sendable, Codable, CaseIterable {
    /// Refuse the run before it starts, naming each test or condition and the recording (the suite's default).
    case refuse
    /// Run without what needs it: the suite leaves out the stage (the test is marked †), the benchmark the
    /// condition (listed as skipped, by name).
    case leaveOut = "leave-out"
    /// Take the project's own recording of that id (`RunRecordings.projectSet`), checked against its
    /// manifest's checksum and named in the results; leave out as above when it has none (the benchmark's default).
    case borrow
}

/// A recording a stage needs, taken from the project's own set because the run's dataset lacks it.
public struct BorrowedRecording: Sendable, Codable, Equatable {
    public var id: String
    public var dataset: String
    public var file: String
    public var sha256: String

    public init(id: String, dataset: String, file: String, sha256: String) {
        self.id = id
        self.dataset = dataset
        self.file = file
        self.sha256 = sha256
    }
}

/// The recordings a run's stages name, read at the working rate by one policy: the dataset's own (or an
/// audio file's path), else the project's (`borrow`), else missing with the reason.
public struct RunRecordings: Sendable {
    public private(set) var audio: [String: Audio] = [:]
    /// Those taken from the project's set, in the order of `ids`.
    public private(set) var borrowed: [BorrowedRecording] = []
    /// Why each recording that could not be had is missing, by id.
    public private(set) var missing: [String: String] = [:]

    /// Where borrowed recordings come from; read only when a recording is missing and the policy borrows.
    public typealias ProjectSet = @Sendable () -> Dataset?

    /// The project's own noises and impulse responses: Datasets/default, or Datasets/catalog where fetched.
    @Sendable public static func projectSet() -> Dataset? { ["default", "catalog"].lazy.compactMap { try? Dataset.load($0) }.first }

    public init(_ ids: [String], dataset: Dataset, policy: MissingRecordingPolicy, projectSet: ProjectSet = RunRecordings.projectSet) {
        let needed = Set(ids).sorted()
        let fallback = policy == .borrow && needed.contains { dataset.recordingPath($0) == nil } ? projectSet() : nil
        for id in needed {
            do {
                if let path = dataset.recordingPath(id) {
                    audio[id] = try AudioReader.read(path, sampleRate: workingRate)
                } else if let fallback, let theirs = fallback.namedRecording(id) {
                    let path = fallback.path(theirs.file), checksum = try sha256Hex(file: path)
                    guard checksum == fallback.recordedSHA256(theirs.file) else {
                        missing[id] = "the project's \(path) does not match its manifest's checksum"
                        continue
                    }
                    audio[id] = try AudioReader.read(path, sampleRate: workingRate)
                    borrowed.append(.init(id: id, dataset: fallback.manifest.name, file: theirs.file, sha256: checksum))
                } else {
                    missing[id] = "not in dataset '\(dataset.manifest.name)', nor an audio file's path"
                        + (fallback.map { ", nor in the project's \($0.manifest.name)" } ?? "")
                }
            } catch { missing[id] = "cannot be read as audio: \(error)" }
        }
    }

    /// The stages' context: these recordings; a stage whose recording is missing is left out unless the policy refuses.
    public func context(_ policy: MissingRecordingPolicy) -> StageContext { StageContext(recordings: audio, leavesOutMissing: policy != .refuse) }
}
