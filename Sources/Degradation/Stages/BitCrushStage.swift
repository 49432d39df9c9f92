import AudioIO
import DSP
import Foundation

/// Requantization to fewer bits (a cheap recorder, an old sampler): each sample rounded to the nearest of
/// 2^bits levels over [-1, 1]. The worked example of "Adding a degradation": this file and one line in
/// `StageUnits.all`.
public struct BitCrush: Degradation {
    public var bits: Double
    public init(bits: Double) { self.bits = bits }
    public var record: DegradationRecord { DegradationRecord("bitcrush", ["bits": format(bits)]) }
    public func apply(_ audio: Audio, random: SeededNoise) -> Audio {
        let step = Float(2 / pow(2, bits))  // the distance between two levels over the full scale [-1, 1]
        return Audio(samples: audio.samples.map { ($0 / step).rounded() * step }, sampleRate: audio.sampleRate)
    }
}

/// `{"bitcrush": {"bits": 8}}`: fewer bits are harder.
public struct BitCrushStage: OneNumberStage {
    public static let name = "bitcrush", field = "bits", range: ClosedRange<Double> = 1...24, example = #"{"bitcrush": {"bits": 8}}"#
    public var value: Double
    public init(_ value: Double) { self.value = value }
    public func stages(_ context: StageContext) throws -> [any Degradation] { [BitCrush(bits: value)] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (nil, false) }
}
