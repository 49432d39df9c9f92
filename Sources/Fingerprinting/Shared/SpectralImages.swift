import DSP

/// The front end shared by the Haar-wavelet algorithms (thesis AFA, Waveprint): a band-energy
/// spectrogram cut into images of `rows` consecutive frames (rows = time, columns = bands).
struct SpectralImageMaker {
    let stft: STFT
    let bands: BandMapper
    let rows: Int

    init(sampleRate: Double, frameSize: Int, hop: Int, bandEdges: [Double], rows: Int) {
        stft = STFT(frameSize: frameSize, hop: hop, window: .rectangular)
        bands = BandMapper(edges: bandEdges, fftSize: frameSize, sampleRate: sampleRate)
        self.rows = rows
    }

    /// Samples one image spans: its first frame plus `rows - 1` hops.
    var imageSpan: Int { stft.frameSize + (rows - 1) * stft.hop }

    /// The band-energy rows the images are cut from.
    var frontEnd: FrameFrontEnd { .bandEnergies(stft, bands: bands) }

    /// Images starting every `frameStride` frames, cut as the rows come.
    func window(frameStride: Int) -> ImageWindow { ImageWindow(rows: rows, columns: bands.bandCount, stride: frameStride) }
}

/// The last `rows` rows of a band-energy spectrogram: hands out each image of `rows` consecutive frames
/// as its last row arrives, for images starting at frames 0, stride, 2·stride, ...
struct ImageWindow {
    let rows: Int
    let columns: Int
    let stride: Int
    /// Row r of the spectrogram lives at slot r mod rows.
    private var ring: [Float]
    private var seen = 0

    init(rows: Int, columns: Int, stride: Int) {
        self.rows = rows
        self.columns = columns
        self.stride = stride
        ring = [Float](repeating: 0, count: rows * columns)
    }

    /// Adds the next row; returns the image it completes and that image's first frame, if one starts on the stride.
    mutating func add(_ row: UnsafeBufferPointer<Float>) -> (start: Int, image: Matrix)? {
        let slot = seen % rows
        for c in 0..<columns { ring[slot * columns + c] = row[c] }
        seen += 1
        let start = seen - rows
        guard start >= 0, start % stride == 0 else { return nil }
        // The oldest row sits just after the newest: two copies put the image in time order.
        let oldest = (seen % rows) * columns
        var values: [Float] = []
        values.reserveCapacity(ring.count)
        values += ring[oldest...]
        values += ring[..<oldest]
        return (start, Matrix(rows: rows, columns: columns, values: values))
    }
}

/// What a Haar-wavelet algorithm keeps of each image (its sub-fingerprint), built image by image.
public protocol WaveletImageCoder {
    associatedtype Print: Fingerprint
    /// Adds the sub-fingerprint of one image's wavelets; the image starts at frame `imageStart`.
    mutating func add(_ wavelets: [Float], imageStart: Int)
    func finish(duration: Double) -> Print
}

/// The back end of the Haar-wavelet algorithms: each image, Haar-transformed (normalised, standard 2-D
/// decomposition) as its last row arrives, and handed to the algorithm's coder. The decomposition transforms
/// each row of an image on its own before the columns, and a frame's row is the same in every image that holds
/// it (128 images for a query's, cut every frame), so each row is transformed once, as it arrives.
public struct WaveletImages<Coder: WaveletImageCoder>: RowBuilder {
    var window: ImageWindow
    var coder: Coder

    public mutating func add(_ frame: UnsafeBufferPointer<Float>) {
        let row = Haar.transform(Array(frame.prefix(window.columns)), form: .normalised)
        guard var cut = row.withUnsafeBufferPointer({ window.add($0) }) else { return }
        Haar.transformColumns(&cut.image, form: .normalised)
        coder.add(cut.image.values, imageStart: cut.start)
    }

    public func finish(duration: Double) -> Coder.Print { coder.finish(duration: duration) }
}

/// The `count` wavelet coefficients of largest magnitude. With `ranked`, largest first, ties to the lower
/// index so the order never depends on the sort; without, in no particular order (Waveprint needs only the set).
/// Runs once per spectral image, so it selects by radix: a float's bit pattern with the sign cleared
/// orders like its magnitude, and a histogram of its top 11 bits (2,048 buckets) finds the boundary bucket in one pass.
func topCoefficients(_ coefficients: [Float], count: Int, ranked: Bool = true) -> [(index: Int, value: Float)] {
    let k = min(count, coefficients.count)
    guard k > 0 else { return [] }
    let shift: UInt32 = 20  // 31 magnitude bits -> 2,048 buckets
    let chosen = coefficients.withUnsafeBufferPointer { values -> [Int] in
        // Through raw buffers, the histogram on the stack: this runs for every image of every file.
        func key(_ i: Int) -> UInt32 { values[i].bitPattern & 0x7FFF_FFFF }
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 1 << 11) { histogram in
            histogram.initialize(repeating: 0)
            var highest = 0
            for i in 0..<values.count {
                let b = Int(key(i) &>> shift)
                histogram[b] &+= 1
                highest = max(highest, b)
            }
            var bucket = highest, above = 0
            while above + Int(histogram[bucket]) < k { above += Int(histogram[bucket]); bucket -= 1 }
            var chosen: [Int] = [], boundary: [Int] = []
            chosen.reserveCapacity(k)
            // Sixteen at a time, skipping those below the boundary bucket (most are).
            let lowest = SIMD16(repeating: UInt32(bucket) &<< shift), raw = UnsafeRawBufferPointer(values)
            for start in stride(from: 0, to: values.count, by: 16) {
                let end = min(start &+ 16, values.count)
                if end &- start == 16, !any(raw.loadUnaligned(fromByteOffset: start &* 4, as: SIMD16<UInt32>.self) & 0x7FFF_FFFF .>= lowest) { continue }
                for i in start..<end {
                    let b = Int(key(i) &>> shift)
                    if b > bucket { chosen.append(i) } else if b == bucket { boundary.append(i) }
                }
            }
            let byMagnitude: (Int, Int) -> Bool = { key($0) != key($1) ? key($0) > key($1) : $0 < $1 }
            boundary.sort(by: byMagnitude)
            chosen += boundary.prefix(k - above)
            if ranked { chosen.sort(by: byMagnitude) }
            return chosen
        }
    }
    return chosen.map { (index: $0, value: coefficients[$0]) }
}
