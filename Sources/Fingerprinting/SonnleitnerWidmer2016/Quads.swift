/// Sonnleitner & Widmer's quads: a root peak A, a peak B later and higher, and two peaks C and D inside
/// the box A-B spans, in time order A < C <= D <= B. The hash is where C and D lie in that box, each
/// coordinate scaled to [0, 1]: a change of speed, tempo or pitch stretches the box but leaves the
/// coordinates, which makes the hash translation- and scale-invariant in time and in (linear) frequency.
enum Quads {
    /// The four coordinates C't, C'f, D't, D'f in 8 bits each, C't highest.
    static let coordinateBits = 8
    static var layoutDescription: String { "bits 31-24 C't, 23-16 C'f, 15-8 D't, 7-0 D'f; each (C - A) / (B - A) in 256 steps" }

    /// Every valid quad whose B, C and D lie `window` frames after A, keeping the `perSecond` strongest
    /// (by the power of C and D) among those rooted in each second (`framesPerSecond` frames), as
    /// (time << 32 | hash) keys; the time is A's frame.
    static func keys(_ peaks: [Peak], window: ClosedRange<Int>, perSecond: Int, framesPerSecond: Int) -> [UInt64] {
        var strongest: [(strength: Float, key: UInt64)] = [], keys: [UInt64] = []
        var second = -1
        func keepStrongest() {
            strongest.sort { $0.strength != $1.strength ? $0.strength > $1.strength : $0.key < $1.key }
            keys += strongest.prefix(perSecond).map(\.key)
            strongest.removeAll(keepingCapacity: true)
        }
        var low = 0
        for a in peaks {
            if a.frame / framesPerSecond != second { keepStrongest(); second = a.frame / framesPerSecond }
            while low < peaks.count && peaks[low].frame < a.frame + window.lowerBound { low += 1 }
            var high = low
            while high < peaks.count && peaks[high].frame <= a.frame + window.upperBound { high += 1 }
            // Peaks come in (frame, bin) order, so C, D, B in time order are index-ordered triples.
            for c in low..<high where peaks[c].bin > a.bin {
                for d in c..<high where d != c && peaks[d].bin >= a.bin {
                    for b in d..<high where b != d && peaks[b].bin > a.bin
                        && peaks[b].frame > a.frame && peaks[c].bin < peaks[b].bin && peaks[d].bin <= peaks[b].bin {
                        strongest.append((peaks[c].value + peaks[d].value,
                                          UInt64(a.frame) << 32 | UInt64(hash(a, peaks[b], peaks[c], peaks[d]))))
                    }
                }
            }
        }
        keepStrongest()
        return keys
    }

    static func hash(_ a: Peak, _ b: Peak, _ c: Peak, _ d: Peak) -> UInt32 {
        let width = Double(b.frame - a.frame), height = Double(b.bin - a.bin)
        func scaled(_ value: Int, _ extent: Double) -> UInt32 { UInt32(min(255, max(0, Int(Double(value) / extent * 256)))) }
        return scaled(c.frame - a.frame, width) << 24 | scaled(c.bin - a.bin, height) << 16
            | scaled(d.frame - a.frame, width) << 8 | scaled(d.bin - a.bin, height)
    }

    /// The hash's coordinate `i` (0 ... 3, from the highest byte).
    static func coordinate(_ hash: UInt32, _ i: Int) -> Int { Int(hash >> UInt32(24 - 8 * i) & 0xFF) }
    static func coordinates(_ hash: UInt32) -> [Int] { (0..<4).map { coordinate(hash, $0) } }

    /// Whether two hashes lie within `tolerance` steps in every coordinate (the paper's range search); no
    /// array made, as verification asks it of every pair of nearby quads.
    static func agree(_ a: UInt32, _ b: UInt32, tolerance: Int) -> Bool {
        (0..<4).allSatisfy { abs(coordinate(a, $0) - coordinate(b, $0)) <= tolerance }
    }
}

/// The range search on the shared postings: the hash space cut into cells of 8 steps per coordinate
/// (20-bit keys); a reference quad is posted in every cell its ±tolerance box touches, a query quad looks
/// up its own cell, so every reference quad within the tolerance is met (with some a little further).
public struct QuadNeighbourhood: HashNeighbourhood {
    let tolerance: Int
    static let cellShift = 3
    public var keyBits: Int { 4 * (Quads.coordinateBits - Self.cellShift) }
    public var sectionName: String { "quads" }

    public func postedKeys(_ hash: UInt32, into keys: inout [UInt32]) {
        let cells = Quads.coordinates(hash).map { v in (max(0, v - tolerance) >> Self.cellShift)...(min(255, v + tolerance) >> Self.cellShift) }
        for a in cells[0] { for b in cells[1] { for c in cells[2] { for d in cells[3] { keys.append(Self.key(a, b, c, d)) } } } }
    }

    public func lookedUpKeys(_ hash: UInt32, into keys: inout [UInt32]) {
        func cell(_ i: Int) -> Int { Quads.coordinate(hash, i) >> Self.cellShift }
        keys.append(Self.key(cell(0), cell(1), cell(2), cell(3)))
    }

    /// A cell's key: its four coordinates, 5 bits each.
    static func key(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> UInt32 { UInt32(a) << 15 | UInt32(b) << 10 | UInt32(c) << 5 | UInt32(d) }
}

extension TimeLineMatcher {
    /// Query against reference: every query quad within `tolerance` steps of a reference quad is a hit;
    /// the line through them; the score is the share of the reference's quads in the stretch the query
    /// spans that the query reproduced on the line.
    func compareQuads(query: HashFingerprint, reference: HashFingerprint, tolerance: Int) -> Comparison {
        // Reference quads by their first coordinate, so each query quad scans only those near it: sorted
        // by hash << 32 | index, the order of a stable sort by hash.
        let keyed = radixSorted(reference.hashes.enumerated().map { UInt64($1) << 32 | UInt64($0) })
        let order = keyed.map { Int($0 & 0xFFFF_FFFF) }
        let firsts = order.map { Int(reference.hashes[$0] >> 24) }
        var hits: [TimeHit] = []
        for (hash, time) in zip(query.hashes, query.times) {
            let first = Int(hash >> 24)
            var k = firsts.lowerBound { $0 < first - tolerance }
            while k < order.count && firsts[k] <= first + tolerance {
                let r = order[k]
                if Quads.agree(hash, reference.hashes[r], tolerance: tolerance) {
                    hits.append(TimeHit(id: Int32(r), queryTime: Int32(time), referenceTime: Int32(reference.times[r])))
                }
                k += 1
            }
        }
        return comparison(of: hits, query: query, reference: reference)
    }
}
