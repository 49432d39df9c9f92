/// What `--keep-audio` keeps: nothing (the default), the audio of answers that were not correct, or all.
public enum KeepAudio: String, Sendable, CaseIterable {
    case none, failures, all
}
