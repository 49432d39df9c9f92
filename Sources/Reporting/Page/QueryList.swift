import Foundation

/// The page's list of answers, one row per query and algorithm, failing ones first. Stored once in
/// the page as JSON in which each cell is an index into its column's distinct values (the
/// benchmark's 40,000 answers repeat few values), the indices packed as base-64 digits, as many per
/// column as its count of values needs (none for a column of one value), all rows in one string: the
/// reference benchmark's page stays under 2 MB. Shown 50 rows at a time.
struct QueryList {
    enum Kind: String { case text, audio }

    struct Column {
        var name: String
        var kind: Kind = .text
    }

    var columns: [Column]
    var rows: [[String]] = []
    /// Columns offered as filters (a summary cell links to a filter on them).
    var filters: [String]
    /// Outcomes shown as failures (highlighted).
    var failed: [String]
    /// A sentence above the list: what a row is, what the outcomes mean, where audio comes from.
    var caption: String

    /// The link that opens the list filtered (column name → value).
    static func href(_ filter: [String: String]) -> String {
        "#q:" + filter.sorted { $0.key < $1.key }.map { "\(escape($0.key))=\(escape($0.value))" }.joined(separator: "&")
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~@"))) ?? text
    }

    var json: String {
        var distinct = columns.map { _ in [String: Int]() }, values = columns.map { _ in [String]() }
        let indexed = rows.map { row in
            row.enumerated().map { c, value -> Int in
                if let i = distinct[c][value] { return i }
                distinct[c][value] = values[c].count
                values[c].append(value)
                return values[c].count - 1
            }
        }
        // Base-64 digits per column: enough for its largest index.
        let widths = values.map { column in
            var width = 0
            while 1 << (6 * width) < column.count { width += 1 }
            return width
        }
        var packed: [UInt8] = []
        packed.reserveCapacity(rows.count * widths.reduce(0, +))
        for row in indexed {
            for (c, index) in row.enumerated() {
                for digit in stride(from: widths[c] - 1, through: 0, by: -1) { packed.append(Self.digits[(index >> (6 * digit)) & 63]) }
            }
        }
        let encoder = JSONEncoder()
        func text(_ value: some Encodable) -> String { String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self) }
        let columnsJSON = columns.enumerated().map { c, column in
            "{\"name\":\(text(column.name)),\"kind\":\"\(column.kind.rawValue)\",\"values\":\(text(values[c]))}"
        }
        let json = "{\"columns\":[\(columnsJSON.joined(separator: ","))],\"filters\":\(text(filters)),\"failed\":\(text(failed)),\n"
            + "\"rowCount\":\(rows.count),\"widths\":\(text(widths)),\n\"packed\":\"" + String(decoding: packed, as: UTF8.self) + "\"}"
        return json.replacingOccurrences(of: "</", with: "<\\/")
    }

    /// The base-64 digits of packed indices (no character JSON or HTML would escape); the page's script
    /// reads them with the same alphabet.
    static let digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-".utf8)

    var html: String {
        "<section id=\"queries\">\n<h2>Queries</h2>\n<p>\(caption)</p>\n<div id=\"query-controls\"></div>\n<p id=\"query-count\"></p>\n"
            + "<div class=\"query-scroll\"><table id=\"query-list\"><thead></thead><tbody></tbody></table></div>\n<div id=\"query-pager\"></div>\n"
            + "<script type=\"application/json\" id=\"query-data\">\(json)</script>\n</section>\n"
    }
}

/// Audio a run kept, looked up once per file: the path when the file exists in the folder, else "" (no player).
final class KeptFiles {
    private let folder: URL
    private var known: [String: Bool] = [:]

    init(in folder: URL) { self.folder = folder }

    func path(_ relative: String) -> String {
        if known[relative] == nil { known[relative] = FileManager.default.fileExists(atPath: folder.appendingPathComponent(relative).path) }
        return known[relative]! ? relative : ""
    }
}
