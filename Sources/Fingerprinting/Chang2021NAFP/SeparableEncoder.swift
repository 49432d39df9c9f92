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
    /// The projection head's two layers, weights transposed to [in][out].
    let hidden: (weights: [Float], biases: [Float]), output: (weights: [Float], biases: [Float])
    let melFilters: [Float]
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
        func transposed(_ w: [Float], rows: Int, columns: Int) -> [Float] {
            var t = [Float](repeating: 0, count: w.count)
            for r in 0..<rows { for c in 0..<columns { t[c * rows + r] = w[r * columns + c] } }
            return t
        }
        self.header = header
        self.blocks = blocks
        hidden = (transposed(try tensor("project0.weight", [width, inputs]), rows: width, columns: inputs), try tensor("project0.bias", [width]))
        output = (transposed(try tensor("project1.weight", [header.embedding, width]), rows: header.embedding, columns: width),
                  try tensor("project1.bias", [header.embedding]))
        melFilters = Self.melFilters(header)
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
        // The filters are mostly zeros, which the scalar path skips once per band (the vector one tests them per
        // block of bands and column tile): the same bits, a fraction of the work.
        multiply(melFilters, spectra, into: &image, m: h.mels, n: frames, k: bins, scalar: true)
        for i in image.indices { image[i] = log10(image[i] + 1e-6) }
        let top = image.max() ?? 0
        return image.map { max($0 - top, -8) / 8 + 1 }
    }

    /// The large arrays of a forward pass, kept from one batch to the next: allocated anew, each batch's
    /// megabytes were mapped, touched page by page and unmapped again (a sixth of a file's time in the kernel).
    struct Buffers {
        var columns: [Float] = []
        var spare: [Float] = []
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
        let columns = count * oh * ow
        // im2col into zeros (the padding is never written), in the kept buffer.
        if buffers.columns.count < channels * 3 * columns { buffers.columns = [Float](repeating: 0, count: channels * 3 * columns) }
        x.withUnsafeBufferPointer { x in
            buffers.columns.withUnsafeMutableBufferPointer { all in
                let col = UnsafeMutableBufferPointer(rebasing: all[..<(channels * 3 * columns)])
                col.update(repeating: 0)
                for ci in 0..<channels {
                    for k in 0..<3 {
                        let row = (ci * 3 + k) * columns
                        for s in 0..<count {
                            let source = x.baseAddress! + (ci * count + s) * height * width, target = col.baseAddress! + row + s * oh * ow
                            if alongTime {
                                // Output time t reads input time t * stride + k - 1, inside [0, width).
                                let first = k == 0 ? 1 : 0, end = width - k < 0 ? 0 : min(ow, (width - k) / c.stride + 1)
                                for f in 0..<oh where first < end {
                                    for t in first..<end { target[f * ow + t] = source[f * width + t * c.stride + k - 1] }
                                }
                            } else {
                                for f in 0..<oh {
                                    let sf = f * c.stride + k - 1
                                    guard sf >= 0, sf < height else { continue }
                                    (target + f * ow).update(from: source + sf * width, count: ow)
                                }
                            }
                        }
                    }
                }
            }
        }
        // The output starts as the biases, in the spare buffer (the previous layer's input).
        var y: [Float] = []
        swap(&y, &buffers.spare)
        y.removeAll(keepingCapacity: true)
        for bias in c.biases { y.append(contentsOf: repeatElement(bias, count: columns)) }
        multiply(c.weights, buffers.columns, into: &y, m: c.outputs, n: columns, k: channels * 3)
        y.withUnsafeMutableBufferPointer { y in
            for i in y.indices { y[i] = y[i] < 0 ? 0 : y[i] }  // ReLU as a select, so it vectorises (-0 stays -0, as before)
        }
        buffers.spare = x  // the caller's only other hold on it is replaced by `y`
        return (y, out)
    }

    /// rows × inputs times the layer's [inputs][outputs] weights, plus its biases.
    private func layer(_ x: [Float], _ l: (weights: [Float], biases: [Float]), rows: Int, inputs: Int) -> [Float] {
        let outputs = l.biases.count
        var y = (0..<rows).flatMap { _ in l.biases }
        multiply(x, l.weights, into: &y, m: rows, n: outputs, k: inputs)
        return y
    }
}

/// c (m × n) += a (m × k) · b (k × n), row-major: our kernel (Sources/CKernels), each sum in the order of k with
/// every product rounded, terms with a zero in `a` skipped, so its AVX2 form and its scalar one (`scalar`, and
/// processors without AVX2) give the same bits and the golden fingerprints hold on every machine.
func multiply(_ a: [Float], _ b: [Float], into c: inout [Float], m: Int, n: Int, k: Int, scalar: Bool = false) {
    precondition(a.count >= m * k && b.count >= k * n && c.count >= m * n, "multiply: matrices smaller than their shapes")
    fp_multiply_add(a, b, &c, Int32(m), Int32(n), Int32(k), scalar ? 1 : 0)
}

public struct NeuralWeightsError: Error, CustomStringConvertible {
    public var description: String
}
