/// What `--keep-audio` keeps: nothing (the default), the audio of answers that were not correct, or all.
public enum KeepAudio: String, Sendable, CaseIterable {
    case none, failures, all

    /// Most megabytes kept unless `--keep-audio-limit` says otherwise: the failing answers of a
    /// reference benchmark (about 2,000 at 10 s, 16-bit mono at 44.1 kHz) with room to spare.
    public static let defaultLimitMegabytes = 200
}
