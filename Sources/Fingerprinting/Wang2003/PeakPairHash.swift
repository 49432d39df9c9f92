/// A bit field of the peak-pair hash.
struct HashField: Equatable, Sendable {
    let shift: Int
    let width: Int
    var mask: UInt32 { UInt32((UInt64(1) << UInt64(width)) - 1) << UInt32(shift) }
    func holds(_ value: Int) -> Bool { (0..<(1 << width)).contains(value) }
}

/// How a peak pair is packed into a hash: the anchor's bin, the target's (as a difference, or itself) and
/// the frames between them. Each field is range-checked before packing, so no field can spill into another.
struct PeakPairHash: Equatable, Sendable {
    let f1: HashField
    /// The target: df + `dfBias`, or its bin f2 when `dfBias` is nil.
    let target: HashField
    let dt: HashField
    let dfBias: Int?

    /// audfprint's 20 bits: f1 (8) | df + 32 (6) | dt (6), 1M distinct hashes.
    static let audfprint = PeakPairHash(f1: HashField(shift: 12, width: 8), target: HashField(shift: 6, width: 6),
                                        dt: HashField(shift: 0, width: 6), dfBias: 32)
    /// Wang's 32 bits: f1 (10) | f2 (10) | dt (12), room for 2,048-point frames and long target zones.
    static let wang = PeakPairHash(f1: HashField(shift: 22, width: 10), target: HashField(shift: 12, width: 10),
                                   dt: HashField(shift: 0, width: 12), dfBias: nil)

    /// The layout of that many bits (20 or 32), or nil.
    static func layout(bits: Int) -> PeakPairHash? { [audfprint, wang].first { $0.bits == bits } }

    var fields: [HashField] { [f1, target, dt] }
    var bits: Int { fields.map(\.width).reduce(0, +) }
    var layoutDescription: String {
        let second = dfBias.map { "df+\($0)" } ?? "f2"
        return "bits \(bits - 1)-\(f1.shift) f1, \(target.shift + target.width - 1)-\(target.shift) \(second), \(dt.width - 1)-0 dt (\(bits) bits)"
    }

    func pack(f1 bin: Int, df: Int, dt frames: Int) -> UInt32 {
        let second = dfBias.map { df + $0 } ?? bin + df
        precondition(f1.holds(bin), "f1 \(bin) does not fit \(f1.width) bits")
        precondition(target.holds(second), "df \(df) does not fit")
        precondition(dt.holds(frames), "dt \(frames) does not fit")
        return UInt32(bin) << UInt32(f1.shift) | UInt32(second) << UInt32(target.shift) | UInt32(frames) << UInt32(dt.shift)
    }

    func unpack(_ hash: UInt32) -> (f1: Int, df: Int, dt: Int) {
        func value(_ field: HashField) -> Int { Int((hash & field.mask) >> UInt32(field.shift)) }
        let bin = value(f1)
        return (bin, dfBias.map { value(target) - $0 } ?? value(target) - bin, value(dt))
    }

    /// Each anchor peak paired with its `fanOut` nearest targets in the target zone (earliest first,
    /// then lowest bin); the pair's time is the anchor's frame.
    func pairs(_ peaks: [Peak], parameters p: Constellation.Parameters) -> [(hash: UInt32, time: UInt32)] {
        var result: [(hash: UInt32, time: UInt32)] = []
        for (i, anchor) in peaks.enumerated() {
            var targets = 0
            for target in peaks[(i + 1)...] {
                let dt = target.frame - anchor.frame
                if dt > p.maximumTimeDelta || targets == p.fanOut { break }
                let df = target.bin - anchor.bin
                guard dt >= p.minimumTimeDelta, abs(df) <= p.maximumFrequencyDelta else { continue }
                result.append((pack(f1: anchor.bin, df: df, dt: dt), UInt32(anchor.frame)))
                targets += 1
            }
        }
        return result
    }
}
