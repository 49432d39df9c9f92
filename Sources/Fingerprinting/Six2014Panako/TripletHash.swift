/// Panako's triplets: three event points close in time, hashed from what a uniform change of speed,
/// tempo or pitch leaves alone. On a log-frequency axis such a change adds the same number of bins to
/// every frequency and multiplies every time difference by one factor, so frequency differences, the
/// ratio of time differences and the orderings of frequencies and magnitudes stay the same.
enum TripletHash {
    /// (t2 - t1) / (t3 - t1) in 64 steps.
    static let timeRatio = HashField(shift: 0, width: 6)
    /// f1 > f2, f2 > f3, f3 > f1, m1 > m2, m2 > m3, m3 > m1, t2 - t1 > t3 - t2, |f2 - f1| > |f3 - f2|.
    static let orderings = HashField(shift: 6, width: 8)
    /// f1 in steps of 32 bins (about 0.38 octave at 85 bins per octave): the only absolute value.
    static let coarseFrequency = HashField(shift: 14, width: 4)
    /// |f2 - f1| and |f3 - f2| in steps of 4 bins.
    static let firstGap = HashField(shift: 18, width: 6)
    static let secondGap = HashField(shift: 24, width: 6)
    static let keyBits = 30

    static var layoutDescription: String {
        "bits 29-24 |f3-f2|/4, 23-18 |f2-f1|/4, 17-14 f1/32, 13-6 eight orderings, 5-0 (t2-t1)/(t3-t1)·64 (30 bits)"
    }

    static func hash(_ a: Peak, _ b: Peak, _ c: Peak) -> UInt32 {
        func bit(_ condition: Bool, _ position: Int) -> UInt32 { condition ? 1 << UInt32(position) : 0 }
        let orderings = bit(a.bin > b.bin, 0) | bit(b.bin > c.bin, 1) | bit(c.bin > a.bin, 2)
            | bit(a.value > b.value, 3) | bit(b.value > c.value, 4) | bit(c.value > a.value, 5)
            | bit(b.frame - a.frame > c.frame - b.frame, 6) | bit(abs(b.bin - a.bin) > abs(c.bin - b.bin), 7)
        let ratio = min(63, (b.frame - a.frame) * 64 / (c.frame - a.frame))
        return pack(timeRatio, ratio) | pack(self.orderings, Int(orderings)) | pack(coarseFrequency, min(15, a.bin >> 5))
            | pack(firstGap, min(63, abs(b.bin - a.bin) >> 2)) | pack(secondGap, min(63, abs(c.bin - b.bin) >> 2))
    }

    private static func pack(_ field: HashField, _ value: Int) -> UInt32 {
        precondition((0..<(1 << field.width)).contains(value), "\(value) does not fit \(field.width) bits")
        return UInt32(value) << UInt32(field.shift)
    }

    /// The hashes a lookup tries for `hash`: its time ratio ± `range` steps (clipped to the field), the
    /// rest unchanged, so a ratio that fell on the other side of a step boundary is still met.
    static func neighbours(of hash: UInt32, range: Int) -> ClosedRange<UInt32> {
        let ratio = Int(hash & timeRatio.mask), rest = hash & ~timeRatio.mask
        return (rest | UInt32(max(0, ratio - range)))...(rest | UInt32(min(63, ratio + range)))
    }

    /// Every triplet of event points (in frame order) whose consecutive points lie `timeDeltas` frames
    /// and `frequencyDeltas` bins apart, as (time << 32 | hash) keys; the time is the first point's frame.
    static func keys(_ points: [Peak], timeDeltas: ClosedRange<Int>, frequencyDeltas: ClosedRange<Int>) -> [UInt64] {
        var keys: [UInt64] = []
        func follows(_ later: Peak, _ earlier: Peak) -> Bool {
            timeDeltas.contains(later.frame - earlier.frame) && frequencyDeltas.contains(abs(later.bin - earlier.bin))
        }
        for i in points.indices {
            var j = i + 1
            while j < points.count && points[j].frame - points[i].frame <= timeDeltas.upperBound {
                if follows(points[j], points[i]) {
                    var k = j + 1
                    while k < points.count && points[k].frame - points[j].frame <= timeDeltas.upperBound {
                        if follows(points[k], points[j]) {
                            keys.append(UInt64(points[i].frame) << 32 | UInt64(hash(points[i], points[j], points[k])))
                        }
                        k += 1
                    }
                }
                j += 1
            }
        }
        return keys
    }
}

/// Panako's lookups: a triplet is posted under its hash and looked up under its neighbouring time ratios.
public struct TripletNeighbourhood: HashNeighbourhood {
    let range: Int
    public var keyBits: Int { TripletHash.keyBits }
    public var sectionName: String { "triplets" }
    public func postedKeys(_ hash: UInt32, into keys: inout [UInt32]) { keys.append(hash) }
    public func lookedUpKeys(_ hash: UInt32, into keys: inout [UInt32]) { keys += TripletHash.neighbours(of: hash, range: range) }
}

extension TimeLineMatcher {
    /// Panako's query against a reference: every hit of a query triplet among the reference's triplets
    /// with a hash within `range` time-ratio steps, then the line. The score is the share of the
    /// reference's triplets in the stretch the query spans that lie on the line (as constellation's:
    /// noise added to a query adds triplets to it, not to the reference).
    func compareTriplets(query: HashFingerprint, reference: HashFingerprint, range: Int) -> Comparison {
        // hash << 32 | the triplet's index in the reference, sorted: a lookup is a binary search.
        let keys = radixSorted(reference.hashes.enumerated().map { UInt64($1) << 32 | UInt64($0) })
        var hits: [TimeHit] = []
        for (hash, time) in zip(query.hashes, query.times) {
            let tried = TripletHash.neighbours(of: hash, range: range)
            var k = keys.lowerBound { $0 < UInt64(tried.lowerBound) << 32 }
            while k < keys.count && keys[k] >> 32 <= UInt64(tried.upperBound) {
                let r = Int(keys[k] & 0xFFFF_FFFF)
                hits.append(TimeHit(id: Int32(r), queryTime: Int32(time), referenceTime: Int32(reference.times[r])))
                k += 1
            }
        }
        return comparison(of: hits, query: query, reference: reference)
    }
}
