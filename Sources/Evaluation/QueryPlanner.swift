import AudioIO
import Degradation
import DSP
import Foundation

/// Turns a test and a source into the query's degradation chain: which excerpt, where the crop falls,
/// and every stage with its parameters, all fixed by the run's seed.
struct QueryPlanner {
    let seed: UInt64
    /// Noise recordings and impulse responses of the dataset, at the working rate, by id.
    let recordings: [String: Audio]

    struct Plan {
        var excerpt: Excerpt
        var chain: DegradationChain
        var simulated: Bool
    }

    enum Outcome {
        case planned(Plan)
        case skipped(String)
    }

    func plan(_ test: TestDefinition, source: Source, excerptDuration: (Excerpt) -> Double) throws -> Outcome {
        let excerpt: Excerpt
        switch test.kind {
        case .differentRecording:
            guard let alternate = source.alternates.first else { return .skipped("no alternate recording") }
            excerpt = alternate
        default:
            excerpt = source.reference
        }
        let available = excerptDuration(excerpt)
        guard available >= test.queryDuration else {
            return .skipped(String(format: "excerpt is %.2f s, the query needs %.2f s", available, test.queryDuration))
        }
        // Tests 1, 3 and 4 share the crop of a source, so test 3 really is test 1 plus noise.
        let cropDraw = SeededNoise(seed: derivedSeed(seed, test.kind == .differentRecording ? "crop-alternate" : "crop", source.id)).unit()
        var offset = cropDraw * (available - test.queryDuration)
        if let grid = test.cropGrid, grid > 0 { offset = (offset / grid).rounded(.down) * grid }
        var stages: [any Degradation] = [Crop(start: offset, duration: test.queryDuration)]
        let chainSeed = derivedSeed(seed, test.id, source.id)
        switch test.kind {
        case .cropping, .differentRecording: break
        case .addedNoise:
            guard let noise = test.noise else { throw DatasetError(path: test.id, reason: "an added-noise test needs `noise`") }
            stages.append(try addNoise(noise))
        case .rerecordedPlayback:
            guard let playback = test.playback else { throw DatasetError(path: test.id, reason: "a playback test needs `playback`") }
            stages += try playbackStages(playback, random: SeededNoise(seed: derivedSeed(chainSeed, "draws")))
        }
        return .planned(Plan(excerpt: excerpt, chain: DegradationChain(stages, seed: chainSeed), simulated: test.kind == .rerecordedPlayback))
    }

    func addNoise(_ spec: NoiseSpec) throws -> AddNoise {
        switch spec.kind {
        case "white-uniform": return AddNoise(kind: .whiteUniform, level: spec.level)
        case "white-gaussian": return AddNoise(kind: .whiteGaussian, level: spec.level)
        case "pink": return AddNoise(kind: .pink, level: spec.level)
        default:
            guard let audio = recordings[spec.kind] else {
                throw DatasetError(path: spec.kind, reason: "no such noise (white-uniform, white-gaussian, pink, or a noise id of the dataset)")
            }
            return AddNoise(kind: .recorded(name: spec.kind, audio: audio), level: spec.level)
        }
    }

    /// Loudspeaker, room, background noise, microphone, then clock drift and delay.
    func playbackStages(_ p: PlaybackSpec, random: SeededNoise) throws -> [any Degradation] {
        var stages: [any Degradation] = []
        if let id = p.loudspeaker, let response = recordings[id] {
            stages.append(ImpulseResponse(name: id, kind: "loudspeaker (a guitar cabinet standing in)", response: response))
        }
        stages.append(BandPass(low: p.loudspeakerBand[0], high: p.loudspeakerBand[1], label: "loudspeaker"))
        if let id = p.room, let response = recordings[id] {
            stages.append(ImpulseResponse(name: id, kind: "room", response: response))
        }
        stages.append(try addNoise(p.background))
        stages.append(BandPass(low: p.microphoneBand[0], high: p.microphoneBand[1], label: "phone microphone"))
        stages.append(ClockDrift(factor: 1 + p.maximumDrift * (2 * random.unit() - 1)))
        stages.append(Delay(seconds: p.maximumDelay * random.unit()))
        return stages
    }
}
