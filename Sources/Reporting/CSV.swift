/// The one CSV writer of every file the tool writes (RFC 4180): a field holding a comma, a double quote or a
/// line break is quoted, its quotes doubled; rows end in "\n". A variant's name
/// (`haitsma-kalker@berThreshold=0.3,sampleRate=5000`) stays one field.
public enum CSV {
    static func field(_ text: String) -> String {
        text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    /// One row, every field quoted as it must be.
    public static func row(_ fields: [String]) -> String { fields.map(field).joined(separator: ",") }

    /// A whole file: the header's names and the rows.
    static func file(_ header: [String], _ rows: [[String]]) -> String {
        ([header] + rows).map(row).joined(separator: "\n") + "\n"
    }
}
