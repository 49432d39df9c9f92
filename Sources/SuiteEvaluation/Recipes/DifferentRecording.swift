import Evaluation
/// Test 2: the query is cut from another recording of the same source: the source's first alternate,
/// or with `alternate: N` its Nth (the default dataset's second alternates are the harder pairs).
public struct DifferentRecording: QueryRecipe {
    public static let kind = "different-recording"
    /// Which of the source's alternate recordings, from 1.
    public var alternate: Int

    public init(alternate: Int = 1) { self.alternate = alternate }

    public func excerpt(of source: Source) -> Excerpt? {
        source.alternates.indices.contains(alternate - 1) ? source.alternates[alternate - 1] : nil
    }
    public var missingExcerpt: String { alternate == 1 ? "no alternate recording" : "no alternate recording number \(alternate)" }
    public var cropStream: String { alternate == 1 ? "crop-alternate" : "crop-alternate-\(alternate)" }

    enum CodingKeys: String, CodingKey { case alternate }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        alternate = try c.decodeIfPresent(Int.self, forKey: .alternate) ?? 1
        guard (1...100).contains(alternate) else {
            throw DecodingError.dataCorruptedError(forKey: .alternate, in: c, debugDescription: "counts from 1 (the first alternate), got \(alternate)")
        }
    }

    /// The first alternate is written as before the field existed, so its queries keep their cache keys.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if alternate != 1 { try c.encode(alternate, forKey: .alternate) }
    }
}
