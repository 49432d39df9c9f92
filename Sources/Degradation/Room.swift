import DSP
import Foundation

/// A shoebox room by the image-source method (Allen & Berkley 1979): the source mirrored in the six walls
/// again and again, each image heard after its distance over the speed of sound, 1/(4πd) as loud and
/// √(1 − α) quieter for every wall it met. The walls' energy absorption α may differ by octave band, and air
/// may absorb each band over the distance travelled; the response is then summed band by band and each
/// band's part kept to its octave (`OctaveBands`), as pyroomacoustics builds it, so its rooms and ours can be
/// compared band by band (`RoomModelTests`). With one absorption for every frequency and no air the order and
/// absorption follow from a reverberation time as pyroomacoustics' `inverse_sabine` chooses them. Arrivals
/// are rounded to the sample.
public struct ShoeboxRoom: Sendable, Equatable {
    /// Width, depth and height in metres.
    public var size: SIMD3<Double>
    /// The walls' energy absorption coefficient in each octave band (`OctaveBands.centres`), 0 (a mirror) to
    /// 1 (open air); one value: every frequency alike.
    public var absorption: [Double]
    /// Air's energy attenuation per metre in each band (empty: none): the amplitude falls by e^(−m·d/2).
    public var air: [Double]
    /// Images met by more walls than this are left out.
    public var maximumOrder: Int

    /// 343 m/s, air at 20 °C (pyroomacoustics' default).
    public static let speedOfSound = 343.0

    public init(size: SIMD3<Double>, absorption: [Double], air: [Double] = [], maximumOrder: Int) {
        precondition(!absorption.isEmpty && (air.isEmpty || air.count == absorption.count), "one absorption, or one per band with the air's")
        self.size = size
        self.absorption = absorption
        self.air = air
        self.maximumOrder = maximumOrder
    }

    public init(size: SIMD3<Double>, absorption: Double, maximumOrder: Int) {
        self.init(size: size, absorption: [absorption], maximumOrder: maximumOrder)
    }

    /// The room whose walls give `rt60` seconds of reverberation by Sabine at every frequency, without air,
    /// with every image that arrives within it, or nil when no wall can absorb that much (a room too large
    /// for so short a reverberation).
    public init?(size: SIMD3<Double>, rt60: Double) {
        guard rt60 > 0, let absorption = Self.sabineAbsorption(size: size, rt60: rt60), absorption <= 1 else { return nil }
        self.init(size: size, absorption: absorption, maximumOrder: Self.order(size: size, covering: rt60))
    }

    /// The walls' absorption that Sabine's formula gives `rt60` seconds with air absorbing `air` per metre,
    /// T = 24 ln 10 · V / (c (S α + 4 m V)) (0.161 V / (S α + 4 m V): Beranek, "Concert hall acoustics 2008",
    /// J. Audio Eng. Soc. 56(7), section 1.1); nil when air alone is quicker (the walls would give sound back).
    public static func sabineAbsorption(size: SIMD3<Double>, rt60: Double, air: Double = 0) -> Double? {
        let volume = size.x * size.y * size.z, surface = 2 * (size.x * size.y + size.x * size.z + size.y * size.z)
        let absorption = (24 * log(10) * volume / (speedOfSound * rt60) - 4 * air * volume) / surface
        return absorption >= 0 ? absorption : nil
    }

    /// The order of the largest sphere inside the diamond of images that covers `seconds` of arrivals.
    public static func order(size: SIMD3<Double>, covering seconds: Double) -> Int {
        func inscribed(_ a: Double, _ b: Double) -> Double { a * b / (a * a + b * b).squareRoot() }
        let radius = min(inscribed(size.x, size.y), inscribed(size.x, size.z), inscribed(size.y, size.z))
        return Int((speedOfSound * seconds / radius - 1).rounded(.up))
    }

    /// Every image's arrival at the microphone, earliest first: the sample it lands on and its amplitude in
    /// the lowest band (every band, when the walls absorb every frequency alike and there is no air).
    public func arrivals(source: SIMD3<Double>, microphone: SIMD3<Double>, sampleRate: Double) -> [(sample: Int, amplitude: Double)] {
        var found: [(sample: Int, amplitude: Double)] = []
        let gains = bandGains[0], airs = air.first.map { m in { (d: Double) in exp(-0.5 * m * d) } } ?? { _ in 1 }
        forEachArrival(source: source, microphone: microphone, sampleRate: sampleRate) { sample, order, distance in
            found.append((sample, gains[order] * airs(distance) / (4 * .pi * max(distance, 1e-3))))
        }
        return found.sorted { ($0.sample, -$0.amplitude) < ($1.sample, -$1.amplitude) }
    }

    /// The response in each band before it is kept to its octave: what a room whose walls and air absorb as
    /// they do in that band would give at every frequency. Summed in the order the images are visited (a
    /// fixed order), one number per band and sample; the air at the distance each sample stands for.
    public func bandResponses(source: SIMD3<Double>, microphone: SIMD3<Double>, sampleRate: Double) -> [[Double]] {
        let gains = bandGains, bands = gains.count
        // Sample by sample, each sample's bands side by side (and the gains order by order), written through
        // pointers: the same sums in the same order as one array per band, without an array's checks per image.
        let orderGains = (0..<gains[0].count).flatMap { order in gains.map { $0[order] } }
        var arrivals = UnsafeMutableBufferPointer<Double>.allocate(capacity: 0)
        defer { arrivals.deallocate() }
        orderGains.withUnsafeBufferPointer { orderGains in
            forEachArrival(source: source, microphone: microphone, sampleRate: sampleRate) { sample, order, distance in
                if (sample + 1) * bands > arrivals.count {
                    let grown = UnsafeMutableBufferPointer<Double>.allocate(capacity: max(sample + 1, 2 * arrivals.count / bands) * bands)
                    _ = grown.initialize(from: arrivals)
                    grown[arrivals.count...].initialize(repeating: 0)
                    arrivals.deallocate()
                    arrivals = grown
                }
                let spread = 1 / (4 * .pi * max(distance, 1e-3))
                for b in 0..<bands { arrivals[sample * bands + b] += orderGains[order * bands + b] * spread }
            }
        }
        let length = ((0..<arrivals.count / bands).last { arrivals[$0 * bands] != 0 } ?? -1) + 1
        return (0..<bands).map { b in
            let metres = Self.speedOfSound / sampleRate, m = air.isEmpty ? 0 : air[b]
            return (0..<length).map { arrivals[$0 * bands + b] * (m == 0 ? 1 : exp(-0.5 * m * Double($0) * metres)) }
        }
    }

    /// The impulse response from `source` to `microphone`: each band's response kept to its octave and the
    /// bands summed (one band: the response itself).
    public func impulseResponse(source: SIMD3<Double>, microphone: SIMD3<Double>, sampleRate: Double) -> [Float] {
        let responses = bandResponses(source: source, microphone: microphone, sampleRate: sampleRate)
        guard responses.count > 1 else { return responses[0].map { Float($0) } }
        return OctaveBands(sampleRate: sampleRate).combine(responses.map { $0.map { Float($0) } })
    }

    /// Each band's loss after each number of walls: √(1 − α)^order, for as many bands as there are values.
    private var bandGains: [[Double]] {
        absorption.map { a in (0...max(maximumOrder, 0)).map { pow((1 - a).squareRoot(), Double($0)) } }
    }

    /// How many image sources the room visits: the points of the lattice within `maximumOrder` reflections,
    /// (2n + 1)(2n² + 2n + 3) / 3.
    public var imageCount: Double {
        let n = Double(max(maximumOrder, 0))
        return (2 * n + 1) * (2 * n * n + 2 * n + 3) / 3
    }

    /// The most image sources a room may visit: about half a minute of work per response (a 5 × 4 × 2.6 m room up
    /// to an RT60 of about 2.7 s; the documented sweep stops at 2.6 s).
    public static let imageLimit = 100_000_000.0

    /// Each image's sample, the number of walls it met and its distance, in a fixed order.
    private func forEachArrival(source: SIMD3<Double>, microphone: SIMD3<Double>, sampleRate: Double, _ body: (Int, Int, Double) -> Void) {
        let n = maximumOrder
        // Along one axis, image k (parity p) sits at (1 − 2p)·s + 2kL after |k − p| + |k| reflections: two
        // images of each order, visited lowest order first so the loops below stop at the budget.
        func images(_ s: Double, _ length: Double) -> [(position: Double, order: Int)] {
            var found: [(position: Double, order: Int)] = []
            for k in -n...n {
                for p in 0...1 where abs(k - p) + abs(k) <= n { found.append((Double(1 - 2 * p) * s + 2 * Double(k) * length, abs(k - p) + abs(k))) }
            }
            return found.sorted { $0.order < $1.order }
        }
        let xs = images(source.x, size.x), ys = images(source.y, size.y), zs = images(source.z, size.z)
        for x in xs {
            for y in ys {
                if x.order + y.order > n { break }
                for z in zs {
                    if x.order + y.order + z.order > n { break }
                    let d = SIMD3(x.position, y.position, z.position) - microphone, distance = (d * d).sum().squareRoot()
                    body(Int((distance / Self.speedOfSound * sampleRate).rounded()), x.order + y.order + z.order, distance)
                }
            }
        }
    }

    /// The reverberation time of an impulse response by Schroeder's backward integration (1965): the time
    /// the integrated energy takes to fall from −5 to −35 dB, doubled (T30), as pyroomacoustics'
    /// `measure_rt60(decay_db=30)` measures it (a response that never falls 35 dB: over all it falls).
    public static func reverberationTime(_ response: [Float], sampleRate: Double) -> Double {
        var energy = [Double](repeating: 0, count: response.count), sum = 0.0
        for i in response.indices.reversed() { sum += Double(response[i]) * Double(response[i]); energy[i] = sum }
        guard let last = energy.lastIndex(where: { $0 > 0 }), energy[0] > 0 else { return 0 }
        let decibels = energy[..<last].map { 10 * log10($0 / energy[0]) }
        let fall = -(decibels.min() ?? 0), decay = fall - 5 < 30 ? fall : 30
        guard decay > 0, let start = decibels.firstIndex(where: { $0 < -5 }) else { return 0 }
        let end = decibels.firstIndex { $0 < -5 - decay } ?? decibels.count
        return 60 / decay * Double(end - start) / sampleRate
    }
}
