import AudioIO
import DSP
import Foundation

/// `{"room": {"rt60": 0.5, "distance": 1.5, "width": 5, "depth": 4, "height": 2.6, "seed": 1, "walls": "furnished"}}`:
/// played in a simulated shoebox room (`ShoeboxRoom`) whose impulse response reverberates for `rt60` seconds as
/// measured at mid frequencies (the mean T30 of its 500 Hz and 1 kHz octave bands), the other bands as `walls`
/// says a room of that kind does (`RoomWalls`: each band's walls solved for it, air absorbing above), source and
/// microphone `distance` metres apart at places drawn from `seed`, at least half a metre from every wall. Every
/// field has a default: a furnished 5 × 4 × 2.6 m living room reverberating for 0.5 s, 1.5 m apart (a phone held
/// up across a table), seed 1. Longer and farther is harder.
public struct RoomStage: StageUnit, Hashable {
    public static let name = "room", example = #"{"room": {"rt60": 0.8, "distance": 3}}"#
    public static let about: String? = "A simulated shoebox room (image sources); every field has its default."
    public static let fields: [StageField] = [
        .number("rt60", 0.05...5, or: 0.5, about: "The reverberation time its response measures at 500 Hz-1 kHz (T30), in seconds."),
        .number("distance", 0.1...50, or: 1.5, about: "Metres between loudspeaker and microphone."),
        .number("width", 1.5...100, or: 5), .number("depth", 1.5...100, or: 4), .number("height", 1.5...30, or: 2.6),
        .number("seed", 0...1e9, whole: true, or: 1, about: "Draws the two places."),
        .choice("walls", RoomWalls.allCases.map(\.rawValue), or: RoomWalls.furnished.rawValue,
                about: "How the reverberation changes with frequency: a furnished dwelling's, a hall's with its audience (occupied) or without (empty), or flat (every frequency alike, no air)."),
    ]
    public var rt60: Double
    public var distance: Double
    public var size: SIMD3<Double>
    public var seed: Double
    public var walls: RoomWalls

    public init(rt60: Double = 0.5, distance: Double = 1.5, size: SIMD3<Double> = [5, 4, 2.6], seed: Double = 1, walls: RoomWalls = .furnished) {
        self.rt60 = rt60
        self.distance = distance
        self.size = size
        self.seed = seed
        self.walls = walls
    }

    public init(from decoder: Decoder) throws {
        let f = try decoder.stageFields()
        let number = { try f.number(Self.field($0)) }
        self.init(rt60: try number("rt60"), distance: try number("distance"),
                  size: [try number("width"), try number("depth"), try number("height")], seed: try number("seed"),
                  walls: try f.choice(Self.field("walls")))
    }

    public func encode(to encoder: Encoder) throws {
        try encoder.stageFields([("rt60", rt60), ("distance", distance), ("width", size.x), ("depth", size.y), ("height", size.z), ("seed", seed)],
                                choices: [("walls", walls.rawValue)])
    }

    public func stages(_ context: StageContext) throws -> [any Degradation] { [try SimulatedRoom(self)] }
}

/// A `RoomStage`'s room, solved once: in each octave band the walls' absorption whose response measures that
/// band's reverberation time (the asked time scaled by the walls' shape), found by scaling Sabine's time (which
/// image sources in a shoebox outlast: pyroomacoustics measures 0.70 s in a room Sabine gives 0.5) until each
/// band's T30 is within 2 % of its own, or as near as ten rounds come. A band whose air alone is quicker than
/// its time gets mirror walls and the air's time.
public struct SimulatedRoom: Degradation {
    public let stage: RoomStage
    public let room: ShoeboxRoom
    public let source: SIMD3<Double>
    public let microphone: SIMD3<Double>
    /// The T30 of each band's response, in seconds (one: the walls are flat).
    public let measuredBands: [Double]
    /// The response's mid-frequency T30: the mean of its 500 Hz and 1 kHz bands (a flat room's one), seconds.
    public var measuredRT60: Double { measuredBands.count > 3 ? (measuredBands[2] + measuredBands[3]) / 2 : measuredBands[0] }
    /// The rates a room is solved at: every band exists at 44.1 kHz; a flat room's T30 hardly depends on it.
    static let solvingRate = 44_100.0, flatSolvingRate = 16_000.0

    /// Each band's T30 as a measurement hears it: the band's response kept to its octave (`OctaveBands`), at
    /// 44.1 kHz so that every band exists; flat walls: the whole response's T30, at 16 kHz (as before bands).
    /// Kept to its octave, an image-source response decays faster than whole: its images all arrive with one
    /// sign, and the slow part of its decay lies below 62.5 Hz (in the living room at 0.3 s, 0.24 s at 500 Hz
    /// kept to the octave against 0.31 s whole).
    static func reverberationTimes(_ room: ShoeboxRoom, source: SIMD3<Double>, microphone: SIMD3<Double>) -> [Double] {
        let rate = room.absorption.count == 1 ? flatSolvingRate : solvingRate, bands = OctaveBands(sampleRate: rate)
        let responses = room.bandResponses(source: source, microphone: microphone, sampleRate: rate).map { $0.map { Float($0) } }
        guard responses.count > 1 else { return [ShoeboxRoom.reverberationTime(responses[0], sampleRate: rate)] }
        return responses.indices.map { ShoeboxRoom.reverberationTime(bands.keep(responses[$0], to: $0), sampleRate: rate) }
    }

    public init(_ stage: RoomStage) throws {
        if let solved = Self.solved.withLock({ $0[stage] }) { self = solved; return }
        self.stage = stage
        (source, microphone) = try Self.places(stage)
        let shape = stage.walls == .flat ? [1] : stage.walls.shape, air = stage.walls.air
        let targets = shape.map { stage.rt60 * $0 }
        // One order for every round (covering the longest band's first guess), so that each band's response
        // depends on its own walls alone and each band keeps the walls of its own best round.
        let order = ShoeboxRoom.order(size: stage.size, covering: targets.max()! / 1.4)
        var sabine = targets.map { $0 / 1.4 }, best = targets.map { _ in (absorption: 0.0, measured: 0.0, error: Double.infinity) }
        for _ in 0..<10 {
            let absorption = sabine.indices.map { min(1, ShoeboxRoom.sabineAbsorption(size: stage.size, rt60: sabine[$0], air: air.isEmpty ? 0 : air[$0]) ?? 0) }
            let room = ShoeboxRoom(size: stage.size, absorption: absorption, air: air, maximumOrder: order)
            guard room.imageCount <= ShoeboxRoom.imageLimit else {
                throw RoomError(description: String(format: "room: a %g × %g × %g m room reverberating for %g s needs %.0f million image sources, "
                                                    + "more than the %.0f million (about half a minute's work) the model visits; make the room larger or the time shorter",
                                                    stage.size.x, stage.size.y, stage.size.z, stage.rt60, room.imageCount / 1e6, ShoeboxRoom.imageLimit / 1e6))
            }
            let measured = Self.reverberationTimes(room, source: source, microphone: microphone)
            for b in sabine.indices {
                let error = abs(measured[b] / targets[b] - 1)
                if error < best[b].error { best[b] = (absorption[b], measured[b], error) }
                sabine[b] *= targets[b] / max(measured[b], 1e-3)
            }
            if best.allSatisfy({ $0.error < 0.02 }) { break }
        }
        room = ShoeboxRoom(size: stage.size, absorption: best.map(\.absorption), air: air, maximumOrder: order)
        measuredBands = best.map(\.measured)
        guard abs(measuredRT60 / stage.rt60 - 1) < 0.1 else {
            throw RoomError(description: String(format: "room: a %g × %g × %g m room cannot reverberate for %g s (walls absorb at most everything); make it smaller or the time longer",
                                                stage.size.x, stage.size.y, stage.size.z, stage.rt60))
        }
        let solved = self
        Self.solved.withLock { $0[stage] = solved }
    }

    /// Source and microphone `distance` apart, each at least 0.5 m from every wall, drawn from the seed.
    static func places(_ stage: RoomStage) throws -> (SIMD3<Double>, SIMD3<Double>) {
        let random = SeededNoise(seed: UInt64(stage.seed)), margin = 0.5
        let inside = { (p: SIMD3<Double>) in (0..<3).allSatisfy { p[$0] >= margin && p[$0] <= stage.size[$0] - margin } }
        for _ in 0..<10_000 {
            let source = SIMD3((0..<3).map { margin + random.unit() * (stage.size[$0] - 2 * margin) })
            let z = 2 * random.unit() - 1, phi = 2 * .pi * random.unit(), r = (1 - z * z).squareRoot()
            let microphone = source + stage.distance * SIMD3(r * cos(phi), r * sin(phi), z)
            if inside(microphone) { return (source, microphone) }
        }
        throw RoomError(description: String(format: "room: a %g × %g × %g m room has no two places %g m apart and 0.5 m from every wall",
                                            stage.size.x, stage.size.y, stage.size.z, stage.distance))
    }

    /// Rooms solved, and their responses at each rate, once per process.
    private static let solved = Locked<[RoomStage: SimulatedRoom]>([:])
    private struct ResponseKey: Hashable { var stage: RoomStage, rate: Double }
    private static let responses = Locked<[ResponseKey: [Float]]>([:])

    public var record: DegradationRecord {
        let list = { (values: [Double], digits: Int) in values.map { String(format: "%.\(digits)f", $0) }.joined(separator: " ") }
        return DegradationRecord("room", ["rt60_s": format(stage.rt60), "rt60_measured_s": String(format: "%.3f", measuredRT60),
                                          "size_m": "\(format(stage.size.x))×\(format(stage.size.y))×\(format(stage.size.z))",
                                          "distance_m": format(stage.distance), "seed": format(stage.seed), "walls": stage.walls.rawValue,
                                          "absorption": list(room.absorption, 4), "rt60_bands_s": list(measuredBands, 3),
                                          "order": "\(room.maximumOrder)", "level": "matched to input RMS"])
    }

    public func apply(_ audio: Audio, random: SeededNoise) throws -> Audio {
        let key = ResponseKey(stage: stage, rate: audio.sampleRate)
        let response = Self.responses.withLock { $0[key] } ?? {
            let made = room.impulseResponse(source: source, microphone: microphone, sampleRate: audio.sampleRate)
            Self.responses.withLock { $0[key] = made }
            return made
        }()
        return try ImpulseResponse(name: "room", kind: "simulated", response: Audio(samples: response, sampleRate: audio.sampleRate)).apply(audio, random: random)
    }
}

/// A room that cannot be built as asked.
public struct RoomError: Error, CustomStringConvertible {
    public var description: String
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(&value) }
}
