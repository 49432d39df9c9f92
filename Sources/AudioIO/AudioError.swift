/// Everything that can go wrong with an audio file, always naming the file and the reason.
public enum AudioError: Error, Equatable, CustomStringConvertible {
    case missing(path: String)
    case unsupported(path: String, reason: String)
    case unreadable(path: String, reason: String)
    case empty(path: String)
    /// The file holds bytes but decodes to no audio frames.
    case noFrames(path: String)
    case nonFinite(path: String, frame: Int)
    case windowOutOfRange(path: String, window: TimeWindow, fileDuration: Double)
    case writeFailed(path: String, reason: String)
    case resampler(path: String, reason: String)
    /// Decoding stopped at `at` seconds where the header or the requested window says `stated`.
    case truncated(path: String, at: Double, stated: Double)

    public var path: String {
        switch self {
        case .missing(let p), .unsupported(let p, _), .unreadable(let p, _), .empty(let p), .noFrames(let p),
             .nonFinite(let p, _), .windowOutOfRange(let p, _, _), .writeFailed(let p, _), .resampler(let p, _), .truncated(let p, _, _):
            return p
        }
    }

    /// The library could not open the file (not a missing or empty file): another library may.
    var isLibraryRefusal: Bool {
        switch self {
        case .unreadable, .unsupported: return true
        default: return false
        }
    }

    public var reason: String {
        switch self {
        case .missing: return "no such file"
        case .unsupported(_, let r): return "unsupported format: \(r)"
        case .unreadable(_, let r): return "unreadable: \(r)"
        case .empty: return "no audio frames (empty file)"
        case .noFrames: return "decodes to no audio frames, though the file is not empty (damaged, or a header with no audio after it)"
        case .nonFinite(_, let frame): return "non-finite sample (NaN or infinity) at frame \(frame)"
        case .windowOutOfRange(_, let w, _) where !(w.start.isFinite && w.duration.isFinite && w.start >= 0 && w.duration > 0 && w.start + w.duration <= 86_400):
            return "window \(w) is not a window: the start must be 0 or more, the duration above 0, both finite and within a day"
        case .windowOutOfRange(_, let w, let d):
            return "window \(w) does not fit in the file's \(String(format: "%.3f", d)) s (too short)"
        case .writeFailed(_, let r): return "cannot write: \(r)"
        case .resampler(_, let r): return "resampler failed: \(r)"
        case .truncated(_, let at, let stated):
            return String(format: "truncated at %.3f s: the audio stops there, where %.3f s were expected (a damaged or cut file)", at, stated)
        }
    }

    public var description: String { "\(path): \(reason)" }
}
