/// Test 2: the query is cut from another recording of the same source.
public struct DifferentRecording: QueryRecipe {
    public static let kind = "different-recording"
    public init() {}
    public func excerpt(of source: Source) -> Excerpt? { source.alternates.first }
    public var missingExcerpt: String { "no alternate recording" }
    public var cropStream: String { "crop-alternate" }
}
