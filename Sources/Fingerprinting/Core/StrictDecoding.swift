import Foundation

/// Fields of a JSON file that its reader ignored: the keys of `input` that the same value, decoded and encoded
/// again (`known`), does not have. A misspelt optional field (`"queryDuraton": 2`) would otherwise change the
/// experiment silently; each is named by its path, with the nearest known name when one is close.
/// `otherReaders` names fields another program reads (paths without indices, `renders.*` for every field
/// of a list's items), which are not unknown.
func unknownFields(in input: Any, known: Any, path: String = "", otherReaders: Set<String> = []) -> [String] {
    func general(_ path: String) -> String { path.replacingOccurrences(of: #"\[[0-9]+\]"#, with: "", options: .regularExpression) }
    switch (input, known) {
    case (let given as [String: Any], let kept as [String: Any]):
        return given.keys.sorted().flatMap { key -> [String] in
            let here = path.isEmpty ? key : "\(path).\(key)"
            if otherReaders.contains(general(here)) || otherReaders.contains(general(path) + ".*") { return [] }
            guard let value = kept[key] else {
                let near = kept.keys.filter { !given.keys.contains($0) }.min { editDistance(key, $0) < editDistance(key, $1) }
                return ["\(here): unknown field" + (near.map { editDistance(key, $0) <= 3 ? " (did you mean \($0)?)" : "" } ?? "")]
            }
            return unknownFields(in: given[key]!, known: value, path: here, otherReaders: otherReaders)
        }
    case (let given as [Any], let kept as [Any]) where given.count == kept.count:
        return zip(given, kept).enumerated().flatMap { unknownFields(in: $1.0, known: $1.1, path: "\(path)[\($0)]", otherReaders: otherReaders) }
    default:
        return []
    }
}

/// JSON decoded strictly: a bad value, or a field the reader would ignore, is the reason thrown (a
/// `StrictDecodingError` naming the field and why; the caller adds the file). Fields `otherReaders` names
/// (read by another program, such as the fetch script) are left alone.
public func decodeStrictly<T: Codable>(_ type: T.Type, from data: Data, otherReaders: Set<String> = []) throws -> T {
    let value: T
    do { value = try JSONDecoder().decode(T.self, from: data) } catch let error as DecodingError {
        var topLevel = false
        if case .dataCorrupted(let context) = error { topLevel = context.codingPath.isEmpty }
        throw StrictDecodingError(reason: syntaxError(in: data) ?? (topLevel ? hugeNumber(in: data) : nil) ?? explain(error))
    }
    if let input = try? JSONSerialization.jsonObject(with: data),
       let known = try? JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) {
        let unknown = unknownFields(in: input, known: known, otherReaders: otherReaders)
        if !unknown.isEmpty { throw StrictDecodingError(reason: unknown.joined(separator: "; ")) }
    }
    return value
}

/// Where JSON text stops being JSON, as "not valid JSON at line L, column C (...)"; nil when it is valid.
/// (JSONSerialization says "around character N"; a person needs the line.)
func syntaxError(in data: Data) -> String? {
    do { _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]); return nil } catch {
        let said = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        guard let range = said.range(of: #"character (\d+)"#, options: .regularExpression),
              let offset = Int(said[range].dropFirst("character ".count)) else {
            let lines = data.filter { $0 == UInt8(ascii: "\n") }.count + 1
            return said.lowercased().contains("end of file") ? "not valid JSON: it ends before it is complete (after line \(lines))" : "not valid JSON (\(said))"
        }
        let before = data.prefix(offset)
        let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return "not valid JSON at line \(line), column \(column) (\(said))"
    }
}

/// A number in valid JSON that no field of a whole-number type can hold (Foundation's decoder calls the whole
/// text "not valid JSON" then), named by its path; nil when there is none.
func hugeNumber(in data: Data) -> String? {
    func find(_ value: Any, _ path: String) -> String? {
        switch value {
        case let object as [String: Any]: return object.keys.sorted().lazy.compactMap { find(object[$0]!, path.isEmpty ? $0 : "\(path).\($0)") }.first
        case let array as [Any]: return array.enumerated().lazy.compactMap { find($1, "\(path)[\($0)]") }.first
        case let number as NSNumber where !(number is Bool) && abs(number.doubleValue) >= 9.2e18:
            return "\(path.isEmpty ? "the value" : path): \(number) is too large for a whole number (at most 9,223,372,036,854,775,807)"
        default: return nil
        }
    }
    return (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])).flatMap { find($0, "") }
}

public struct StrictDecodingError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

/// Levenshtein distance, for suggesting the name a misspelt field meant.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let current = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = current
        }
    }
    return a.isEmpty ? b.count : row[b.count]
}
