/// A bit field of the peak-pair hash.
struct HashField: Equatable {
    let shift: Int
    let width: Int
    var mask: UInt32 { ((1 << UInt32(width)) - 1) << UInt32(shift) }
}

/// The 20-bit peak-pair hash: f1 (8 bits) | df + 32 (6 bits) | dt (6 bits), as audfprint packs it.
/// Each field is range-checked before packing, so no field can spill into another.
enum PeakPairHash {
    static let dt = HashField(shift: 0, width: 6)
    static let df = HashField(shift: 6, width: 6)
    static let f1 = HashField(shift: 12, width: 8)
    static let fields = [f1, df, dt]
    /// df is stored with this bias so that -31 ... 31 becomes 1 ... 63.
    static let dfBias = 32

    static var layoutDescription: String { "bits 19-12 f1, 11-6 df+32, 5-0 dt (20 bits)" }

    static func pack(f1 bin: Int, df: Int, dt: Int) -> UInt32 {
        let biased = df + dfBias
        precondition((0..<(1 << f1.width)).contains(bin), "f1 \(bin) does not fit \(f1.width) bits")
        precondition((0..<(1 << PeakPairHash.df.width)).contains(biased), "df \(df) does not fit")
        precondition((0..<(1 << PeakPairHash.dt.width)).contains(dt), "dt \(dt) does not fit")
        return UInt32(bin) << UInt32(f1.shift) | UInt32(biased) << UInt32(PeakPairHash.df.shift) | UInt32(dt) << UInt32(PeakPairHash.dt.shift)
    }

    static func unpack(_ hash: UInt32) -> (f1: Int, df: Int, dt: Int) {
        func value(_ field: HashField) -> Int { Int((hash & field.mask) >> UInt32(field.shift)) }
        return (value(f1), value(df) - dfBias, value(dt))
    }

    /// Each anchor peak paired with its `fanOut` nearest targets in the target zone (earliest first,
    /// then lowest bin); the pair's time is the anchor's frame.
    static func pairs(_ peaks: [Peak], parameters p: Constellation.Parameters) -> [(hash: UInt32, time: UInt32)] {
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
