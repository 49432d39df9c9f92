import DSP
import Foundation

/// A shoebox room by the image-source method (Allen & Berkley 1979): the source mirrored in the six walls
/// again and again, each image heard after its distance over the speed of sound, 1/(4πd) as loud and
/// √(1 − α) quieter for every wall it met. The walls' energy absorption α follows from a reverberation
/// time by Sabine's formula, and the highest order from the time the images must cover, both as
/// pyroomacoustics' `inverse_sabine` chooses them, so its rooms and ours can be compared sample by sample
/// (`RoomModelTests`). Frequency-independent walls, no air absorption, arrivals rounded to the sample.
public struct ShoeboxRoom: Sendable, Equatable {
    /// Width, depth and height in metres.
    public var size: SIMD3<Double>
    /// The walls' energy absorption coefficient, 0 (a mirror) to 1 (open air).
    public var absorption: Double
    /// Images met by more walls than this are left out.
    public var maximumOrder: Int

    /// 343 m/s, air at 20 °C (pyroomacoustics' default).
    public static let speedOfSound = 343.0

    public init(size: SIMD3<Double>, absorption: Double, maximumOrder: Int) {
        self.size = size
        self.absorption = absorption
        self.maximumOrder = maximumOrder
    }

    /// The room whose walls give `rt60` seconds of reverberation by Sabine, with every image that arrives
    /// within it (the order of the largest sphere inside the diamond of images), or nil when no wall can
    /// absorb that much (a room too large for so short a reverberation).
    public init?(size: SIMD3<Double>, rt60: Double) {
        let volume = size.x * size.y * size.z, surface = 2 * (size.x * size.y + size.x * size.z + size.y * size.z)
        let absorption = 24 * log(10) * volume / (Self.speedOfSound * surface * rt60)
        guard rt60 > 0, absorption <= 1 else { return nil }
        func inscribed(_ a: Double, _ b: Double) -> Double { a * b / (a * a + b * b).squareRoot() }
        let radius = min(inscribed(size.x, size.y), inscribed(size.x, size.z), inscribed(size.y, size.z))
        self.init(size: size, absorption: absorption, maximumOrder: Int((Self.speedOfSound * rt60 / radius - 1).rounded(.up)))
    }

    /// Every image's arrival at the microphone: the sample it lands on and its amplitude, earliest first.
    public func arrivals(source: SIMD3<Double>, microphone: SIMD3<Double>, sampleRate: Double) -> [(sample: Int, amplitude: Double)] {
        var found: [(sample: Int, amplitude: Double)] = []
        forEachArrival(source: source, microphone: microphone, sampleRate: sampleRate) { found.append(($0, $1)) }
        return found.sorted { ($0.sample, -$0.amplitude) < ($1.sample, -$1.amplitude) }
    }

    /// The impulse response from `source` to `microphone`: every arrival summed at its sample, loudest first
    /// (so the sum does not depend on the order images are visited in). Held as one amplitude per image in
    /// buckets by sample (8 bytes an image: a 2.6 s living room's 92 million images take 0.7 GB), not as a
    /// sorted list of every arrival.
    public func impulseResponse(source: SIMD3<Double>, microphone: SIMD3<Double>, sampleRate: Double) -> [Float] {
        var starts: [Int] = []
        forEachArrival(source: source, microphone: microphone, sampleRate: sampleRate) { sample, _ in
            if sample + 2 > starts.count { starts.append(contentsOf: repeatElement(0, count: sample + 2 - starts.count)) }
            starts[sample + 1] += 1
        }
        guard !starts.isEmpty else { return [] }
        for i in 1..<starts.count { starts[i] += starts[i - 1] }
        var amplitudes = [Double](repeating: 0, count: starts.last!), next = starts
        forEachArrival(source: source, microphone: microphone, sampleRate: sampleRate) { sample, amplitude in
            amplitudes[next[sample]] = amplitude
            next[sample] += 1
        }
        return (0..<starts.count - 1).map { sample in
            var bucket = amplitudes[starts[sample]..<starts[sample + 1]]
            bucket.sort(by: >)
            return Float(bucket.reduce(0, +))
        }
    }

    /// How many image sources the room visits: the points of the lattice within `maximumOrder` reflections,
    /// (2n + 1)(2n² + 2n + 3) / 3.
    public var imageCount: Double {
        let n = Double(max(maximumOrder, 0))
        return (2 * n + 1) * (2 * n * n + 2 * n + 3) / 3
    }

    /// The most image sources a room may visit: 8 bytes each while the response is summed, so at most about
    /// 0.8 GB and a minute per response (a 5 × 4 × 2.6 m room up to an RT60 of about 2.7 s; the documented
    /// sweep stops at 2.6 s).
    public static let imageLimit = 100_000_000.0

    /// Each image's sample and amplitude, in no order.
    private func forEachArrival(source: SIMD3<Double>, microphone: SIMD3<Double>, sampleRate: Double, _ body: (Int, Double) -> Void) {
        let n = maximumOrder, reflection = (1 - absorption).squareRoot()
        let loss = (0...max(n, 0)).map { pow(reflection, Double($0)) }
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
                    body(Int((distance / Self.speedOfSound * sampleRate).rounded()), loss[x.order + y.order + z.order] / (4 * .pi * max(distance, 1e-3)))
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
