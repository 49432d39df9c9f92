/// A decoding error in words: which field, and what was wrong with it.
public func explain(_ error: DecodingError) -> String {
    func at(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case .keyNotFound(let key, let context): return "missing field '\(key.stringValue)' at \(at(context).isEmpty ? "top level" : at(context))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(at(context)): \(context.debugDescription)"
    case .dataCorrupted(let context) where context.codingPath.isEmpty && context.underlyingError != nil:
        return "not valid JSON: \(context.underlyingError.map { "\($0)" } ?? context.debugDescription)"
    case .dataCorrupted(let context) where context.codingPath.isEmpty: return context.debugDescription
    case .dataCorrupted(let context): return "\(at(context)): \(context.debugDescription)"
    @unknown default: return "\(error)"
    }
}
