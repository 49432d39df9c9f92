/// An id that becomes a file or folder name (a suite's test, a benchmark condition): letters, digits, '.', '_'
/// and '-', not starting with '.' or '-', at most 100 characters, so it can never name a path outside the
/// folder it is written in ("../x") nor be taken for an option.
public enum SafeName {
    public static func check(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, id.count <= 100, first != ".", first != "-" else { return false }
        return id.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || ".-_".unicodeScalars.contains($0) }
    }

    public static let rule = "letters, digits, '.', '_', '-'; not starting with '.' or '-'; at most 100 characters"
}
