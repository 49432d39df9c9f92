import Foundation

/// A query length's spellings, each made here: "10s" in query ids, file names and the costs' keys, "10 s"
/// in prose and headings, "10" in the tables' and CSV's columns and the report page's filters.
public struct QueryLength: Hashable, Comparable, Sendable {
    public var seconds: Double
    public init(_ seconds: Double) { self.seconds = seconds }

    /// "10s".
    public var tag: String { number + "s" }
    /// "10 s".
    public var spoken: String { number + " s" }
    /// "10".
    public var number: String { String(format: "%g", seconds) }

    public static func < (a: QueryLength, b: QueryLength) -> Bool { a.seconds < b.seconds }
}
