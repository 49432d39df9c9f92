/// `{"impulse": {"id": "greathall"}}`: convolved with an impulse response of the dataset (a room).
public struct ImpulseStage: StageUnit {
    public static let name = "impulse", example = #"{"impulse": {"id": "greathall"}}"#
    public static let fields: [StageField] = [.text("id", about: "An impulse-response id of the dataset.")]
    public var id: String
    public init(id: String) { self.id = id }
    public init(from decoder: Decoder) throws { id = try decoder.stageFields().decode(String.self, forKey: StageFields("id")) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: StageFields.self)
        try c.encode(id, forKey: StageFields("id"))
    }
    public var recordings: [String] { [id] }
    public func stages(_ context: StageContext) throws -> [any Degradation] {
        context.leavesOut([id]) ? [] : [ImpulseResponse(name: id, kind: "room", response: try context.recording(id, "no such impulse response in the dataset"))]
    }
}
