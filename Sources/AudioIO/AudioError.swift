/// Everything that can go wrong with an audio file, always naming the file and the reason.
public enum AudioError: Error, Equatable, CustomStringConvertible {
    case missing(path: String)
    case unsupported(path: String, reason: String)
    case unreadable(path: String, reason: String)
    case empty(path: String)
    case nonFinite(path: String, frame: Int)
    case windowOutOfRange(path: String, window: TimeWindow, fileDuration: Double)
    case writeFailed(path: String, reason: String)
    case resampler(path: String, reason: String)

    public var path: String {
        switch self {
        case .missing(let p), .unsupported(let p, _), .unreadable(let p, _), .empty(let p),
             .nonFinite(let p, _), .windowOutOfRange(let p, _, _), .writeFailed(let p, _), .resampler(let p, _):
            return p
        }
    }

    public var reason: String {
        switch self {
        case .missing: return "no such file"
        case .unsupported(_, let r): return "unsupported format: \(r)"
        case .unreadable(_, let r): return "unreadable: \(r)"
        case .empty: return "no audio frames (empty file)"
        case .nonFinite(_, let frame): return "non-finite sample (NaN or infinity) at frame \(frame)"
        case .windowOutOfRange(_, let w, let d):
            return "window \(w) does not fit in the file's \(String(format: "%.3f", d)) s (too short)"
        case .writeFailed(_, let r): return "cannot write: \(r)"
        case .resampler(_, let r): return "resampler failed: \(r)"
        }
    }

    public var description: String { "\(path): \(reason)" }
}
