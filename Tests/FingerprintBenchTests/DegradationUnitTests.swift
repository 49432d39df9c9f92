import AudioIO
@testable import Degradation
import DSP
@testable import Evaluation
import Foundation
@testable import SuiteEvaluation
import Sweeps
import Testing

/// Each unit meets its definition on generated audio.
@Suite struct DegradationUnitTests {
    let random = SeededNoise(seed: 1)

    @Test func speedChangesPitchAndTempoTogether() throws {
        let tone = sine(frequency: 1000, duration: 2, sampleRate: 44_100)
        let faster = try Speed(factor: 1.02).apply(tone, random: random)
        #expect(abs(faster.duration - 2 / 1.02) < 0.001)
        #expect(abs(peakFrequency(faster) - 1020) < 2)
    }

    @Test func tempoKeepsThePitchAndPitchKeepsTheDuration() {
        let tone = sine(frequency: 1000, duration: 2, sampleRate: 44_100)
        let faster = Tempo(factor: 1.1).apply(tone, random: random)
        #expect(abs(faster.duration - 2 / 1.1) < 1024 / 44_100, "\(faster.duration)")
        #expect(abs(peakFrequency(faster) - 1000) < 10, "\(peakFrequency(faster))")
        let higher = Pitch(semitones: 2).apply(tone, random: random)
        #expect(abs(higher.duration - 2) < 1024 / 44_100, "\(higher.duration)")
        #expect(abs(peakFrequency(higher) / (1000 * pow(2, 2.0 / 12)) - 1) < 0.01, "\(peakFrequency(higher))")
        #expect(Tempo(factor: 1.1).apply(tone, random: random) == faster, "the same input gives the same output")
    }

    /// A click's place after a chain that changes time is where the chain's time map says, to the
    /// sample, as cross-correlation against the clean click finds it.
    @Test func timeMapsSayWhereAMomentLands() throws {
        let rate = 44_100.0
        var samples = SeededNoise(seed: 9).gaussian(count: Int(4 * rate), sigma: 0.01)
        let click = Int(1.5 * rate)
        for i in 0..<64 { samples[click + i] += Float(sin(Double(i) * 0.7)) * 0.9 }
        let chain = DegradationChain([Crop(start: 0.5, duration: 3), Speed(factor: 1.05), Delay(seconds: 0.25), Tempo(factor: 0.97)], seed: 1)
        let out = try chain.apply(Audio(samples: samples, sampleRate: rate))
        let expected = chain.timeMap(1.5)
        // The loudest stretch of the output is the click.
        let energy = stride(from: 0, to: out.samples.count - 256, by: 16).map { start in
            (start, out.samples[start..<start + 256].reduce(0) { $0 + $1 * $1 })
        }
        let found = (Double(energy.max { $0.1 < $1.1 }!.0) + 128) / rate
        #expect(abs(found - expected) < 0.01, "click at \(found) s, time map says \(expected) s")
        #expect(abs(chain.timeMap.inverse(expected) - 1.5) < 1e-9)
        #expect(abs(out.duration - chain.timeMap(3.5)) < 0.01, "the crop's end is the output's end")
    }

    @Test func clippingCutsExactlyTheStatedShareOrLevel() {
        let noise = Audio(samples: SeededNoise(seed: 3).gaussian(count: 44_100, sigma: 0.2), sampleRate: 44_100)  // no ties
        let byShare = Clipping(level: .share(0.1))
        let t = byShare.threshold(noise.samples)
        #expect(noise.samples.filter { abs($0) > t }.count == 4410)
        let clipped = byShare.apply(noise, random: random)
        #expect(clipped.samples.map(abs).max() == t)
        #expect(zip(noise.samples, clipped.samples).filter { $0 != $1 }.count == 4410)
        let byLevel = Clipping(level: .dBFS(-6)).apply(noise, random: random)
        #expect(abs(Double(byLevel.samples.map(abs).max()!) - pow(10, -6.0 / 20)) < 1e-6)
    }

    @Test func theCompressorsSteadyStateFollowsThresholdAndRatio() {
        // A square wave at -10 dBFS, 10 dB over a -20 dBFS threshold at 4:1, leaves it 2.5 dB over: -17.5 dBFS.
        let amplitude = Float(pow(10, -10.0 / 20))
        let square = Audio(samples: (0..<44_100).map { ($0 / 50) % 2 == 0 ? amplitude : -amplitude }, sampleRate: 44_100)
        let out = Compressor(threshold: -20, ratio: 4).apply(square, random: random)
        let settled = out.samples.suffix(4410).map { Double(abs($0)) }
        #expect(abs(20 * log10(settled.reduce(0, +) / Double(settled.count)) + 17.5) < 0.1)
    }

    @Test func gainAndFiltersDoWhatTheySay() throws {
        let tone = sine(frequency: 440, amplitude: 0.25, duration: 1, sampleRate: 44_100)
        #expect(abs(Double(Gain(decibels: 6).apply(tone, random: random).samples.map(abs).max()!) / 0.25 - pow(10, 0.3)) < 1e-3)
        let planner = QueryPlanner(seed: 1, context: StageContext(recordings: [:]))
        let high = sine(frequency: 3000, amplitude: 0.25, duration: 1, sampleRate: 44_100)
        let lowpassed = try planner.stages(.lowpass(hz: 1000))[0].apply(high, random: random)
        #expect(rms(lowpassed.samples) < 0.01 * rms(high.samples))
        let kept = try planner.stages(.lowpass(hz: 1000))[0].apply(tone, random: random)
        #expect(rms(kept.samples) > 0.99 * rms(tone.samples))
        let highpassed = try planner.stages(.highpass(hz: 1000))[0].apply(tone, random: random)
        #expect(rms(highpassed.samples) < 0.01 * rms(tone.samples))
    }

    @Test func aSuiteFileNamesStagesAndItsBadValuesAreRefused() throws {
        let path = temporaryFolder().appendingPathComponent("suite.json").path
        try Data(#"{"name": "s", "tests": [{"id": "radio", "title": "radio-like", "kind": "degraded", "stages": [{"compressor": {"threshold": -24, "ratio": 6}}, {"clipping": {"share": 0.01}}, {"lowpass": {"hz": 5000}}, {"speed": {"factor": 1.01}}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let suite = try Suite.load(path)
        let recipe = try #require(suite.tests.first?.recipe as? Degraded)
        #expect(recipe.stages == [.compressor(threshold: -24, ratio: 6, attack: 0.005, release: 0.1), .clipping(.share(0.01)), .lowpass(hz: 5000), .speed(factor: 1.01)])
        #expect(try JSONDecoder().decode(Suite.self, from: JSONEncoder().encode(suite)) == suite)
        try Data(#"{"name": "s", "tests": [{"id": "a", "title": "t", "kind": "degraded", "stages": [{"speed": {"factor": 0}}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect { try Suite.load(path) } throws: { "\($0)".contains("factor: must be within 0.25...4.0") }
        try Data(#"{"name": "s", "tests": [{"id": "a", "title": "t", "kind": "degraded", "stages": [{"wobble": {}}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect { try Suite.load(path) } throws: { "\($0)".contains("a stage is one of gain, clipping") }
        try Data(#"{"name": "s", "tests": [{"id": "a", "title": "t", "kind": "degraded", "stages": [{"preset": "radio"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect { try Suite.load(path) } throws: { "\($0)".contains("unknown preset 'radio'; presets: smartphone-recording") }
        try Data(#"{"name": "s", "tests": [{"id": "a", "title": "t", "kind": "degraded", "stages": [{"codec": {"format": "ogg", "kbps": 64}}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect { try Suite.load(path) } throws: { "\($0)".contains("a bitrate is for mp3") }
    }

    /// Test 4's chain as docs/suite.md states it: a cabinet for the loudspeaker, its 150 Hz-12 kHz band, the
    /// hall, pink noise at 20 dB SNR, a phone microphone's 100 Hz-7 kHz band, then up to 0.2 % of clock drift
    /// and 0.1 s of delay, drawn anew for each query (over 200 draws, both ends of each range are reached).
    @Test func thePlaybackChainIsItsDocumentedUnits() throws {
        let one = Audio(samples: [1, 0.5], sampleRate: 44_100)
        let planner = QueryPlanner(seed: 1, context: StageContext(recordings: ["greathall": one, "cabinet-EVH-5150-III": one]))
        let random = SeededNoise(seed: 4)
        var drifts: [Double] = [], delays: [Double] = []
        for _ in 0..<200 {
            let records = try planner.playbackStages(.phone, random: random).map(\.record)
            #expect(records.map(\.name) == ["impulse", "band-pass", "impulse", "noise", "band-pass", "clock-drift", "delay"])
            #expect(records[0].parameters["name"] == "cabinet-EVH-5150-III" && records[2].parameters["name"] == "greathall")
            #expect(records[1].parameters["low_hz"] == "150" && records[1].parameters["high_hz"] == "12000")
            #expect(records[3].parameters["kind"] == "pink" && records[3].parameters["level"] == "20 dB SNR")
            #expect(records[4].parameters["low_hz"] == "100" && records[4].parameters["high_hz"] == "7000")
            drifts.append(Double(records[5].parameters["factor"]!)! - 1)
            delays.append(Double(records[6].parameters["seconds"]!)!)
        }
        #expect(drifts.allSatisfy { abs($0) <= 0.002 } && drifts.min()! < -0.0018 && drifts.max()! > 0.0018)
        #expect(delays.allSatisfy { (0...0.1).contains($0) } && delays.max()! > 0.09)
    }

    /// A preset is its documented chain, recorded unit by unit; a suite round-trips every new unit.
    @Test func presetsExpandToTheirChains() throws {
        let planner = QueryPlanner(seed: 1, context: StageContext(recordings: ["greathall": Audio(samples: [1, 0.5], sampleRate: 44_100)]))
        // Each unit with its values, as docs/commands.md states them ("presets"); what follows from the input
        // (the recording's length, the codec's own compression figure, what a band models) left out.
        let documented: [DegradationPreset: [String]] = [
            .smartphoneRecording: ["highpass high_hz=inf low_hz=100", "lowpass high_hz=7000 low_hz=0",
                                   "compressor attack_s=0.01 ratio=2 release_s=0.01 threshold_dBFS=-35", "clipping clipped_share=0.003",
                                   "noise kind=pink level=35 dB SNR"],
            .smartphonePlayback: ["highpass high_hz=inf low_hz=500", "lowpass high_hz=12000 low_hz=0", "noise kind=pink level=40 dB SNR"],
            .radioBroadcast: ["compressor attack_s=0.2 ratio=2.5 release_s=0.2 threshold_dBFS=-40", "speed factor=1.02"],
            .strongMP3: ["codec format=mp3 kbps=64"],
            .liveRecording: ["impulse kind=room level=matched to input RMS name=greathall", "noise kind=pink level=40 dB SNR"],
        ]
        for preset in DegradationPreset.allCases {
            let units = try planner.stages(.preset(preset)).map { unit in
                ([unit.record.name] + unit.record.parameters.filter { !["models", "compression", "length_s"].contains($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                    .joined(separator: " ")
            }
            #expect(units == documented[preset], "\(preset.rawValue)")
        }
        #expect(throws: (any Error).self) { try QueryPlanner(seed: 1, context: StageContext(recordings: [:])).stages(.preset(.liveRecording)) }
        #expect(StageSpec.preset(.liveRecording).recordings == ["greathall"])
        let specs: [StageSpec] = [.tempo(factor: 1.04), .pitch(semitones: -2), .mp3(kbps: 96), .impulse(id: "greathall"), .preset(.smartphoneRecording)]
        #expect(try JSONDecoder().decode([StageSpec].self, from: JSONEncoder().encode(specs)) == specs)
    }
}

/// The one hand-written list of stage units, docs/commands.md's paragraph on the `degraded` kind, names every unit of
/// the registry and each of its fields: a unit added in code only fails here, by name.
@Test func theDocumentedStageUnitsAreTheRegistrys() throws {
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/commands.md"), encoding: .utf8)
    let start = try #require(text.range(of: "The `degraded` kind runs test 1's crop through any list of stages"))
    let end = try #require(text.range(of: "The same `stages` list", range: start.upperBound..<text.endIndex))
    let paragraph = text[start.upperBound..<end.lowerBound]
    for unit in StageUnits.all {
        #expect(paragraph.contains("`\(unit.name)`"), "docs/commands.md's paragraph on the degraded kind does not name the stage unit \(unit.name)")
        for field in unit.fields {
            #expect(paragraph.contains("`\(field.name)`"), "docs/commands.md's paragraph on the degraded kind does not name \(unit.name)'s field \(field.name)")
        }
    }
}

@Suite struct CodecTests {
    /// 4 s of a real recording at 44.1 kHz.
    func recording() throws -> Audio {
        try AudioReader.read(testDataRoot.appendingPathComponent("birds/petrel-XC663885.wav").path, sampleRate: 44_100,
                             window: TimeWindow(start: 2, duration: 4))
    }

    @Test(arguments: Codec.Format.allCases) func aCodecRoundTripKeepsLengthAndPlace(format: Codec.Format) throws {
        let original = try recording()
        let (coded, delay, bitrate) = try Codec(container: format, compression: 0.5).coded(original)
        #expect(coded.samples.count == original.samples.count)
        #expect(delay >= 0 && delay < 4410)
        #expect(bitrate > 8_000 && bitrate < 400_000, "\(format): \(bitrate) bit/s")
        // In place: the coded audio correlates with the original at lag 0 better than one hop off.
        #expect(correlation(coded.samples, original.samples) > 0.8, "\(format)")
        #expect(correlation(coded.samples, original.samples) > correlation(Array(coded.samples.dropFirst(64)), original.samples))
    }

    /// An MP3 asked for at a bitrate is coded at that bitrate (constant bitrate, within the frame overhead).
    @Test(arguments: [32.0, 64, 128, 320]) func anMP3BitrateIsWhatItSays(kbps: Double) throws {
        let bitrate = try Codec(mp3Kbps: kbps).coded(try recording()).bitrate
        #expect(abs(bitrate / 1000 - kbps) < 0.06 * kbps, "\(bitrate) bit/s for \(kbps) kbps")
    }

    @Test func moreCompressionMeansFewerBits() throws {
        let original = try recording()
        let small = try Codec(container: .mp3, compression: 1).coded(original).bitrate
        let large = try Codec(container: .mp3, compression: 0).coded(original).bitrate
        #expect(small < large / 2, "\(small) vs \(large)")
    }
}

/// The unit added as "Adding a degradation" shows: one file, one registry line, read from a suite file by its name.
@Suite struct BitCrushTests {
    @Test func fewerBitsMeanCoarserLevelsAndTheUnitReadsLikeAnyOther() throws {
        let tone = sine(frequency: 440, amplitude: 0.5, duration: 0.5, sampleRate: 44_100)
        let crushed = BitCrush(bits: 4).apply(tone, random: SeededNoise(seed: 1))
        let step: Float = 2 / 16
        #expect(Set(crushed.samples.map { ($0 / step).rounded() * step }) == Set(crushed.samples))  // on the 4-bit grid
        #expect(zip(crushed.samples, tone.samples).allSatisfy { abs($0 - $1) <= step / 2 + 1e-6 })
        #expect(Set(crushed.samples).count <= 17 && Set(tone.samples).count > 1000)
        let sixteen = BitCrush(bits: 16).apply(tone, random: SeededNoise(seed: 1))
        #expect(rms(zip(sixteen.samples, tone.samples).map { $0 - $1 }) < rms(zip(crushed.samples, tone.samples).map { $0 - $1 }) / 100)

        let spec = try JSONDecoder().decode(StageSpec.self, from: Data(#"{"bitcrush": {"bits": 8}}"#.utf8))
        #expect(try QueryPlanner(seed: 1, context: StageContext(recordings: [:])).stages(spec).map(\.record) == [DegradationRecord("bitcrush", ["bits": "8"])])
        #expect(String(decoding: try JSONEncoder().encode(spec), as: UTF8.self) == #"{"bitcrush":{"bits":8}}"#)
        #expect { try JSONDecoder().decode(StageSpec.self, from: Data(#"{"bitcrush": {"bits": 0}}"#.utf8)) } throws: {
            "\($0)".contains("must be within 1.0...24.0")
        }
        #expect(StageAxis(unit: "bitcrush", parameter: "bits").largerIsHarder == false)
    }
}

/// A field the reader would ignore is refused with its path and the name it most likely meant; docs/algorithms.md's
/// suites, which use every field, load (SchemaTests).
@Suite struct StrictSuiteTests {
    @Test func aMisspeltFieldIsRefusedNotIgnored() throws {
        let path = temporaryFolder().appendingPathComponent("suite.json").path
        try Data(#"{"name": "s", "tests": [{"id": "a", "title": "t", "kind": "cropping", "queryDuraton": 2}, {"id": "b", "title": "t", "kind": "degraded", "stages": [{"compressor": {"threshold": -20, "ratio": 4, "atack": 0.1}}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect { try Suite.load(path) } throws: {
            "\($0)".contains("tests[0].queryDuraton: unknown field (did you mean queryDuration?)")
                && "\($0)".contains("tests[1].stages[0].compressor.atack: unknown field (did you mean attack?)")
        }
        try Data(#"{"name": "s", "tests": [{"id": "a", "title": "t", "kind": "cropping", "queryDuration": 2}]}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try Suite.load(path).tests[0].queryDuration == 2)
    }
}
