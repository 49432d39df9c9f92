import AudioIO
import CRubberBand
import DSP
import Foundation

/// Played `factor` times faster with the pitch kept (a DJ's tempo control, a sped-up broadcast): Rubber
/// Band's offline time-stretcher; the duration becomes duration / factor.
public struct Tempo: Degradation {
    public var factor: Double
    public init(factor: Double) { self.factor = factor }
    public var record: DegradationRecord { DegradationRecord("tempo", ["factor": format(factor)]) }
    public var timeMap: TimeMap { TimeMap(scale: 1 / factor) }
    public func apply(_ audio: Audio, random: SeededNoise) -> Audio { stretch(audio, timeRatio: 1 / factor, pitchScale: 1) }
}

/// Shifted by `semitones` with the tempo kept (a transposed performance, a pitch-corrected stream):
/// Rubber Band's offline pitch shifter; the duration is unchanged.
public struct Pitch: Degradation {
    public var semitones: Double
    public init(semitones: Double) { self.semitones = semitones }
    public var record: DegradationRecord { DegradationRecord("pitch", ["semitones": format(semitones)]) }
    public func apply(_ audio: Audio, random: SeededNoise) -> Audio { stretch(audio, timeRatio: 1, pitchScale: pow(2, semitones / 12)) }
}

/// Rubber Band (R2 engine, offline: the whole input is studied first, so the output is exactly
/// `timeRatio` times as long), one thread, for the same output whatever else runs.
func stretch(_ audio: Audio, timeRatio: Double, pitchScale: Double) -> Audio {
    guard !audio.samples.isEmpty else { return audio }
    let options = RubberBandOptionProcessOffline.rawValue | RubberBandOptionThreadingNever.rawValue | RubberBandOptionEngineFaster.rawValue
    let state = rubberband_new(UInt32(audio.sampleRate.rounded()), 1, Int32(options), timeRatio, pitchScale)
    defer { rubberband_delete(state) }
    let count = UInt32(audio.samples.count)
    rubberband_set_expected_input_duration(state, count)
    let block = 16_384
    audio.samples.withUnsafeBufferPointer { input in
        for start in stride(from: 0, to: input.count, by: block) {
            var channel: UnsafePointer<Float>? = input.baseAddress! + start
            rubberband_study(state, &channel, UInt32(min(block, input.count - start)), start + block >= input.count ? 1 : 0)
        }
    }
    var output: [Float] = []
    output.reserveCapacity(Int(Double(audio.samples.count) * timeRatio) + block)
    var buffer = [Float](repeating: 0, count: block)
    func drain() {
        while rubberband_available(state) > 0 {
            let got = buffer.withUnsafeMutableBufferPointer { b -> UInt32 in
                var channel: UnsafeMutablePointer<Float>? = b.baseAddress
                return rubberband_retrieve(state, &channel, UInt32(min(block, Int(rubberband_available(state)))))
            }
            output += buffer.prefix(Int(got))
        }
    }
    audio.samples.withUnsafeBufferPointer { input in
        for start in stride(from: 0, to: input.count, by: block) {
            var channel: UnsafePointer<Float>? = input.baseAddress! + start
            rubberband_process(state, &channel, UInt32(min(block, input.count - start)), start + block >= input.count ? 1 : 0)
            drain()
        }
    }
    drain()
    return Audio(samples: output, sampleRate: audio.sampleRate)
}
