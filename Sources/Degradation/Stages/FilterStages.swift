// Filters: low-pass and high-pass (fourth-order Butterworth, `BandPass`).

/// `{"lowpass": {"hz": 3000}}`: a lower cut-off is harder.
public struct LowPassStage: OneNumberStage {
    public static let name = "lowpass", field = "hz", range: ClosedRange<Double> = 1...200_000, example = #"{"lowpass": {"hz": 3000}}"#
    public var value: Double
    public init(_ value: Double) { self.value = value }
    public func stages(_ context: StageContext) throws -> [any Degradation] { [BandPass(low: 0, high: value, label: "low-pass")] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (nil, false) }
}

/// `{"highpass": {"hz": 300}}`: a higher cut-off is harder.
public struct HighPassStage: OneNumberStage {
    public static let name = "highpass", field = "hz", range: ClosedRange<Double> = 0...200_000, example = #"{"highpass": {"hz": 300}}"#
    public var value: Double
    public init(_ value: Double) { self.value = value }
    public func stages(_ context: StageContext) throws -> [any Degradation] { [BandPass(low: value, high: .infinity, label: "high-pass")] }
}
