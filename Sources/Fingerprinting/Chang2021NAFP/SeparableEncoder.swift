import CKernels
import DSP
import Foundation

/// nafp-small's network, read from its weights file and run in-process: NAFP's front end (a log-mel image of
/// each 1 s segment) and its encoder of separable convolution blocks, batch norm folded into the convolutions
/// by the export (`scripts/train_nafp_small.py`, whose `FrontEnd` and `forward_folded` this mirrors), each
/// layer one matrix product (`multiply`: our kernel, not BLAS, so every machine computes the same bits and
/// the golden fingerprints hold; OpenBLAS picks its kernel by processor). The file: a line "FPNN 1", a line of JSON (the constants and each
/// tensor's name, shape and offset), then the tensors as little-endian float16.
struct SeparableEncoder: Sendable {
    struct Header: Codable, Sendable {
        var model: String
        var rate: Int
        var segment: Int
        var hopSeconds: Double
        var fft: Int
        var fftHop: Int
        var mels: Int
        var fMin: Double
        var fMax: Double
        var channels: [Int]
        var frequencyStrides: [Int]
        var timeStrides: [Int]
        var embedding: Int
        var tensors: [Tensor]
    }

    struct Tensor: Codable, Sendable {
        var name: String
        var shape: [Int]
        var offset: Int
    }

    /// A convolution along one axis with a kernel of 3, padding 1: weights [out][in × 3], biases [out].
    struct Convolution: Sendable {
        var weights: [Float]
        var biases: [Float]
        var outputs: Int
        var stride: Int
    }

    let header: Header
    /// Per block: the time convolution (1 × 3), then the frequency convolution (3 × 1).
    let blocks: [(time: Convolution, frequency: Convolution)]
    /// The projection head's two layers, weights transposed to [in][out], in the product's tiles.
    let hidden: (weights: [Float], biases: [Float]), output: (weights: [Float], biases: [Float])
    let melFilters: [Float]
    /// Per band, the bins from its filter's first value above zero to its last.
    let melBins: [Range<Int>]
    let window: [Float]
    /// Frames per segment (centred frames: 1 + segment / fftHop).
    var frames: Int { 1 + header.segment / header.fftHop }

    init(file data: Data) throws {
        func fail(_ reason: String) -> Error { NeuralWeightsError(description: "nafp-small's weights file: \(reason)") }
        let lines = data.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count == 3, lines[0].elementsEqual("FPNN 1".utf8) else { throw fail("it does not start with the line FPNN 1") }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(lines[1])) else { throw fail("its second line is not the JSON header") }
        let body = Data(lines[2])
        func tensor(_ name: String, _ shape: [Int]) throws -> [Float] {
            guard let t = header.tensors.first(where: { $0.name == name }), t.shape == shape else { throw fail("no tensor \(name) of shape \(shape)") }
            let count = shape.reduce(1, *)
            guard t.offset >= 0, t.offset + 2 * count <= body.count else { throw fail("tensor \(name) lies past the file's end") }
            return body.withUnsafeBytes { raw in
                (0..<count).map { Float(Float16(bitPattern: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: t.offset + 2 * $0, as: UInt16.self)))) }
            }
        }
        guard header.channels.count == header.frequencyStrides.count, header.channels.count == header.timeStrides.count else {
            throw fail("channels and strides disagree in length")
        }
        var blocks: [(Convolution, Convolution)] = [], inputs = 1
        for (i, (c, (fs, ts))) in zip(header.channels, zip(header.frequencyStrides, header.timeStrides)).enumerated() {
            blocks.append((Convolution(weights: try tensor("block\(i).time.weight", [c, inputs, 1, 3]), biases: try tensor("block\(i).time.bias", [c]), outputs: c, stride: ts),
                           Convolution(weights: try tensor("block\(i).freq.weight", [c, c, 3, 1]), biases: try tensor("block\(i).freq.bias", [c]), outputs: c, stride: fs)))
            inputs = c
        }
        let width = try tensor("project0.bias", [256]).count
        /// [outputs][inputs] as the product's b: [inputs][outputs] in its tiles of 16 outputs ([outputs / 16][inputs][16]).
        func tiled(_ w: [Float], outputs: Int, inputs: Int) -> [Float] {
            var t = [Float](repeating: 0, count: (outputs + 15) / 16 * 16 * inputs)
            for o in 0..<outputs { for i in 0..<inputs { t[(o / 16 * inputs + i) * 16 + o % 16] = w[o * inputs + i] } }
            return t
        }
        self.header = header
        self.blocks = blocks
        hidden = (tiled(try tensor("project0.weight", [width, inputs]), outputs: width, inputs: inputs), try tensor("project0.bias", [width]))
        output = (tiled(try tensor("project1.weight", [header.embedding, width]), outputs: header.embedding, inputs: width),
                  try tensor("project1.bias", [header.embedding]))
        let filters = Self.melFilters(header), bins = header.fft / 2 + 1
        melFilters = filters
        melBins = (0..<header.mels).map { b in
            let row = filters[(b * bins)..<((b + 1) * bins)]
            guard let first = row.firstIndex(where: { $0 != 0 }), let last = row.lastIndex(where: { $0 != 0 }) else { return 0..<0 }
            return (first - b * bins)..<(last - b * bins + 1)
        }
        window = WindowFunction.hann.coefficients(size: header.fft)!
    }

    /// Triangular filters on the HTK mel scale, [mels][fft / 2 + 1], each band's peak 1 (the script's `mel_matrix`).
    static func melFilters(_ h: Header) -> [Float] {
        func mel(_ f: Double) -> Double { 2595 * log10(1 + f / 700) }
        func hz(_ m: Double) -> Double { 700 * (pow(10, m / 2595) - 1) }
        let edges = (0..<(h.mels + 2)).map { hz(mel(h.fMin) + (mel(h.fMax) - mel(h.fMin)) * Double($0) / Double(h.mels + 1)) }
        let bins = h.fft / 2 + 1
        var filters = [Float](repeating: 0, count: h.mels * bins)
        for b in 0..<h.mels {
            let (low, middle, high) = (edges[b], edges[b + 1], edges[b + 2])
            for k in 0..<bins {
                let f = Double(k) * Double(h.rate) / Double(h.fft)
                filters[b * bins + k] = Float(max(0, min((f - low) / (middle - low), (high - f) / (high - middle))))
            }
        }
        return filters
    }

    /// A segment's log-mel image, [mels][frames]: centred frames (zero padding), periodic Hann, power, log10 of the
    /// mel energies + 1e-6, scaled to the image's maximum, floored 8 decades below it, mapped to [0, 1].
    func image(_ segment: ArraySlice<Float>, fft: RealFFT) -> [Float] {
        let h = header, bins = h.fft / 2 + 1
        var padded = [Float](repeating: 0, count: h.segment + h.fft)
        padded.replaceSubrange((h.fft / 2)..<(h.fft / 2 + segment.count), with: segment)
        var power = [Float](repeating: 0, count: bins), spectra = [Float](repeating: 0, count: bins * frames)
        padded.withUnsafeBufferPointer { samples in
            for t in 0..<frames {
                fft.powerSpectrum(UnsafeBufferPointer(rebasing: samples[(t * h.fftHop)..<(t * h.fftHop + h.fft)]), window: window, into: &power)
                for k in 0..<bins { spectra[k * frames + t] = power[k] }
            }
        }
        var image = [Float](repeating: 0, count: h.mels * frames)
        // The filters are mostly zeros: each band sums only the bins its filter covers, whose zeros the product skipped
        // term by term (the same bits, a fraction of the work).
        melFilters.withUnsafeBufferPointer { filters in
            spectra.withUnsafeBufferPointer { spectra in
                image.withUnsafeMutableBufferPointer { image in
                    for (b, covered) in melBins.enumerated() where !covered.isEmpty {
                        fp_multiply_add(filters.baseAddress! + b * bins + covered.lowerBound, spectra.baseAddress! + covered.lowerBound * frames,
                                        image.baseAddress! + b * frames, 1, Int32(frames), Int32(covered.count),
                                        fp_product(scalar: 1, tiled: 0, biases: nil, relu: 0))
                    }
                }
            }
        }
        for i in image.indices { image[i] = log10(image[i] + 1e-6) }
        let top = image.max() ?? 0
        return image.map { max($0 - top, -8) / 8 + 1 }
    }

    /// The large arrays of a forward pass, kept from one batch to the next: allocated anew, each batch's
    /// megabytes were mapped, touched page by page and unmapped again (a sixth of a file's time in the kernel).
    struct Buffers {
        var columns: [Float] = []
        var spare: [Float] = []
        /// Each layer shape's im2col reads (`convolve`), made once.
        var reads: [ReadsShape: [Int32]] = [:]
    }

    /// What a convolution's im2col reads depend on.
    struct ReadsShape: Hashable {
        var count, height, width, stride: Int
        var alongTime: Bool
    }

    /// The unit embeddings of `images` (each [mels][frames]), [count][embedding].
    func embed(_ images: [[Float]], buffers: inout Buffers) -> [Float] {
        let n = images.count
        // Activations as [channel][image][frequency][time], so a layer is one product over every image.
        var x = images.flatMap { $0 }, channels = 1, height = header.mels, width = frames
        for (time, frequency) in blocks {
            (x, width) = convolve(x, time, channels: channels, count: n, height: height, width: width, alongTime: true, buffers: &buffers)
            channels = time.outputs
            (x, height) = convolve(x, frequency, channels: channels, count: n, height: height, width: width, alongTime: false, buffers: &buffers)
        }
        // [channel][image] (one frequency, one time) -> [image][channel], through the head.
        let features = (0..<n).flatMap { i in (0..<channels).map { x[$0 * n * height * width + i * height * width] } }
        var middle = layer(features, hidden, rows: n, inputs: channels)
        for i in middle.indices where middle[i] <= 0 { middle[i] = exp(middle[i]) - 1 }  // ELU, alpha 1
        let embeddings = layer(middle, output, rows: n, inputs: hidden.biases.count)
        return VectorFingerprint.normalized(embeddings, dimension: header.embedding)
    }

    /// A convolution with a kernel of 3 along time or frequency, padding 1, its stride, then ReLU: im2col, one
    /// product. Returns the activations and the new length of the axis convolved.
    private func convolve(_ x: [Float], _ c: Convolution, channels: Int, count: Int, height: Int, width: Int, alongTime: Bool,
                          buffers: inout Buffers) -> ([Float], Int) {
        let length = alongTime ? width : height, out = (length - 1) / c.stride + 1
        let (oh, ow) = alongTime ? (height, out) : (out, width)
        let columns = count * oh * ow, rows = channels * 3, tiles = (columns + 15) / 16, plane = count * height * width
        let shape = ReadsShape(count: count, height: height, width: width, stride: c.stride, alongTime: alongTime)
        let reads = buffers.reads[shape] ?? Self.reads(shape, tiles: tiles)
        buffers.reads[shape] = reads
        // im2col in the product's own tiles ([tile][row][16], a row an input channel and tap), written in order, each
        // value read where it lies: written row by row instead, each tile's rows lie far apart, and every store missed.
        let size = tiles * rows * 16
        if buffers.columns.count < size { buffers.columns = [Float](repeating: 0, count: size) }
        x.withUnsafeBufferPointer { x in
            reads.withUnsafeBufferPointer { reads in
                buffers.columns.withUnsafeMutableBufferPointer { col in
                    var target = col.baseAddress!
                    for tile in 0..<tiles {
                        for ci in 0..<channels {
                            let source = x.baseAddress! + ci * plane
                            for k in 0..<3 {
                                let at = reads.baseAddress! + k * tiles * 16 + tile * 16
                                for l in 0..<16 { target[l] = at[l] < 0 ? 0 : source[Int(at[l])] }
                                target += 16
                            }
                        }
                    }
                }
            }
        }
        // The output, in the spare buffer (the previous layer's input), grown when too short but never cleared or
        // shrunk: the product writes its first c.outputs × columns values, starting each row at its bias (ReLU as it
        // stores), and only those are read. (Shrunk and grown again by zeros, layer after layer, it cost 2 % of a file.)
        var y: [Float] = []
        swap(&y, &buffers.spare)
        let outputs = c.outputs * columns
        if y.count < outputs { y.append(contentsOf: repeatElement(0, count: outputs - y.count)) }
        multiply(c.weights, buffers.columns, into: &y, m: c.outputs, n: columns, k: rows, tiled: true, biases: c.biases, relu: true)
        buffers.spare = x  // the caller's only other hold on it is replaced by `y`
        return (y, out)
    }

    /// Where tap k of column j (image, frequency, time) reads in its input channel's plane ([image][frequency][time]),
    /// at k * tiles * 16 + j: -1 in the padding and past the last column.
    private static func reads(_ shape: ReadsShape, tiles: Int) -> [Int32] {
        let (height, width, stride) = (shape.height, shape.width, shape.stride)
        let length = shape.alongTime ? width : height, out = (length - 1) / stride + 1
        let (oh, ow) = shape.alongTime ? (height, out) : (out, width)
        var reads = [Int32](repeating: -1, count: 3 * tiles * 16)
        for k in 0..<3 {
            for s in 0..<shape.count {
                for f in 0..<oh {
                    for t in 0..<ow {
                        let (sf, st) = shape.alongTime ? (f, t * stride + k - 1) : (f * stride + k - 1, t)
                        guard sf >= 0, sf < height, st >= 0, st < width else { continue }
                        reads[k * tiles * 16 + (s * oh + f) * ow + t] = Int32(s * height * width + sf * width + st)
                    }
                }
            }
        }
        return reads
    }

    /// rows × inputs times the layer's [inputs][outputs] weights, plus its biases.
    private func layer(_ x: [Float], _ l: (weights: [Float], biases: [Float]), rows: Int, inputs: Int) -> [Float] {
        let outputs = l.biases.count
        var y = (0..<rows).flatMap { _ in l.biases }
        multiply(x, l.weights, into: &y, m: rows, n: outputs, k: inputs, tiled: true)
        return y
    }
}

/// c (m × n) += a (m × k) · b (k × n), row-major (b in the kernel's tiles of 16 columns, `tiled`: [n / 16 rounded
/// up][k][16]; each row i of c starting as `biases[i]`, not c's values, when given; ReLU as c is stored, `relu`):
/// our kernel (Sources/CKernels), each sum in the order of k with every product rounded, terms with a zero in `a`
/// skipped, so its AVX2 form and its scalar one (`scalar`, and processors without AVX2) give the same bits and the
/// golden fingerprints hold on every machine.
func multiply(_ a: [Float], _ b: [Float], into c: inout [Float], m: Int, n: Int, k: Int, scalar: Bool = false, tiled: Bool = false,
              biases: [Float]? = nil, relu: Bool = false) {
    precondition(a.count >= m * k && b.count >= (tiled ? (n + 15) / 16 * 16 : n) * k && c.count >= m * n && (biases?.count ?? m) >= m,
                 "multiply: matrices smaller than their shapes")
    (biases ?? []).withUnsafeBufferPointer { biases in
        let options = fp_product(scalar: scalar ? 1 : 0, tiled: tiled ? 1 : 0, biases: biases.isEmpty ? nil : biases.baseAddress, relu: relu ? 1 : 0)
        fp_multiply_add(a, b, &c, Int32(m), Int32(n), Int32(k), options)
    }
}

public struct NeuralWeightsError: Error, CustomStringConvertible {
    public var description: String
}
