import AudioIO
import DSP
import Foundation
import Synchronization

/// nafp-small: a neural audio fingerprint of NAFP's recipe (Chang et al., ICASSP 2021) at 0.7 M parameters,
/// trained on this project's two CPU cores (docs/learned.md): each 1 s segment, every 0.5 s, embedded as a
/// unit vector of 128 floats by a network run in-process (`SeparableEncoder`), searched by the vector index
/// (exact, FAISS above its size) and matched as NAFP matches sequences. Not NAFP itself: its size, bands and
/// training data are ours (the profile says which values are).
public struct NAFPSmall: StreamingFingerprinting, Parameterized {
    /// The weights' SHA-256, as Algorithms/nafp-small/README.md pins it beside the command that made them.
    public static let weightsSHA256 = "0892221d8603470aed7761c14caea05264df9d4ca47bd0d9a0a8dc6cce586ba6"

    /// What a run may change; the network is fixed by its weights.
    public struct Parameters: AlgorithmParameters {
        /// Seconds between segments, references and queries alike (the offsets' step).
        public var hopSeconds = 0.5
        /// A match when the query's segments and the reference's agree this well on average (inner products
        /// of unit vectors).
        public var minimumSimilarity = 0.5
        /// Nearest reference segments per query segment that vote.
        public var neighbours = VectorMatching.defaultNeighbours
        /// The network's weights: empty for the built-in ones (pinned by `weightsSHA256`), or the path of other
        /// weights in the same format (`scripts/train_nafp_small.py export`), a model retrained or trained longer.
        public var weights = ""

        public init() {}

        public var problem: String? {
            if !(0.05...2).contains(hopSeconds) || (hopSeconds * 8000).rounded() != hopSeconds * 8000 {
                return "hopSeconds must be 0.05 to 2 s, a whole number of samples at 8 kHz"
            }
            if !(-1...1).contains(minimumSimilarity) { return "minimumSimilarity must be -1 to 1 (a mean inner product of unit vectors)" }
            if !(1...1000).contains(neighbours) { return "neighbours must be 1 to 1,000" }
            if !weights.isEmpty, case .failure(let error) = NAFPSmall.network(weights) { return "\(error)" }
            return nil
        }
    }

    public var parameters: Parameters
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public var identifier: String { "nafp-small" }
    public var revision: Int { 1 }
    public var displayName: String { "nafp-small: NAFP's recipe at 0.7 M parameters, trained here (Chang et al. 2021)" }
    public var sampleRate: Double { 8000 }
    public var minimumDuration: Double { 1 }
    public var offsetResolution: Double? { parameters.hopSeconds }
    public var rawFigureName: String { "mean similarity of the aligned segments" }

    public func describe() -> Profile {
        let n = Citation.nafp, p = parameters
        return Profile([
            Parameter("sampleRate", 8000, source: "\(n) §3.1: 8 kHz"),
            Parameter("segment", "1 s", source: "\(n) §3.1: 1 s segments"),
            Parameter("hopSeconds", p.hopSeconds, source: "\(n) §3.1: a segment every 0.5 s (references and queries alike)"),
            Parameter("frontEnd", "STFT 1,024 / 256, periodic Hann, centred frames; 64 mel bands 300-4,000 Hz; log10; scaled to the segment's maximum, floored 80 dB below",
                      source: "\(n) §3.1 (1,024 / 256, 300-4,000 Hz); 64 bands (NAFP: 256) and the floor are our choice: a quarter of the first layer's work"),
            Parameter("encoder", "8 separable blocks (1 × 3 over time, 3 × 1 over frequency, batch norm, ReLU), channels 32 ... 192",
                      source: "\(n) §3.2 (the blocks); widths our choice: about a tenth of NAFP's, weights under 2 MB as float16"),
            Parameter("projection", "192 → 256 → ELU → 128, L2-normalised", source: "\(n) §3.2: a 128-d unit embedding (one group: our choice)"),
        ] + weightsParameters(p.weights) + VectorMatching(minimumSimilarity: p.minimumSimilarity, neighbours: p.neighbours, search: nil)
            .parameters(source: "our choice: no neural paper answers \"no match\"; the benchmark calibrates it"))
    }

    /// The training and the weights: the built-in run's, or the file `weights` names, by its SHA-256 (a
    /// fingerprint cache keeps the two apart).
    func weightsParameters(_ weights: String) -> [Parameter] {
        guard !weights.isEmpty else {
            return [
                Parameter("training", "NT-Xent, τ 0.05, 120 pairs a batch, 10 epochs on 6.2 h of game music disjoint from every benchmark set",
                          source: "\(Citation.nafp) §3.3 (loss, τ); data and length ours: docs/learned.md, Datasets/train-small/manifest.json"),
                Parameter("weights", "nafp-small.fpnn, 715,488 parameters, float16, SHA-256 \(Self.weightsSHA256.prefix(16))…",
                          source: "trained here by scripts/train-nafp-small.sh (Algorithms/nafp-small/README.md)"),
            ]
        }
        let digest = (try? Self.network(weights).get().sha256) ?? "unreadable"
        return [
            Parameter("training", "whatever made the weights file", source: "the run's setting"),
            Parameter("weights", "\(weights), SHA-256 \(digest)", source: "the run's setting"),
        ]
    }

    /// A network and the SHA-256 of the file it was read from.
    struct Network: Sendable {
        var encoder: SeparableEncoder
        var sha256: String
    }

    /// The networks read so far, by their `weights` setting, each read and checked once per process.
    private static let networks = Mutex<[String: Result<Network, NeuralWeightsError>]>([:])

    /// The network of a `weights` setting: the built-in weights, refused unless their SHA-256 is the pinned
    /// one, or the file named.
    static func network(_ weights: String) -> Result<Network, NeuralWeightsError> {
        networks.withLock { read in
            if let known = read[weights] { return known }
            let network = Result { try readNetwork(weights) }.mapError { $0 as? NeuralWeightsError ?? NeuralWeightsError(description: "\($0)") }
            read[weights] = network
            return network
        }
    }

    /// The weights built in: a resource of the build.
    static var builtInWeights: URL? { Bundle.module.url(forResource: "nafp-small", withExtension: "fpnn") }

    private static func readNetwork(_ weights: String) throws -> Network {
        guard !weights.isEmpty else {
            guard let url = builtInWeights, let data = try? Data(contentsOf: url) else {
                throw NeuralWeightsError(description: "nafp-small's weights file (nafp-small.fpnn) is missing from fpbench's resources: rebuild with swift build")
            }
            let digest = sha256Hex(data)
            guard digest == weightsSHA256 else {
                throw NeuralWeightsError(description: "nafp-small's weights file has SHA-256 \(digest), not the pinned \(weightsSHA256): "
                                         + "new weights need a new pin and revision (Algorithms/nafp-small/README.md)")
            }
            return Network(encoder: try SeparableEncoder(file: data), sha256: digest)
        }
        guard let data = FileManager.default.contents(atPath: weights) else {
            throw NeuralWeightsError(description: "weights: no readable file at \(weights)")
        }
        do {
            return Network(encoder: try SeparableEncoder(file: data), sha256: sha256Hex(data))
        } catch {
            throw NeuralWeightsError(description: "weights: \(weights) is not a weights file of scripts/train_nafp_small.py export: \(error)")
        }
    }

    /// Segments embedded this many at a time: a layer's activations stay a few megabytes. The bits do not depend on it.
    static let batch = 16

    public func stream(role: FingerprintRole) -> SegmentStream {
        SegmentStream(network: Self.network(parameters.weights), hop: Int((parameters.hopSeconds * sampleRate).rounded()), step: parameters.hopSeconds)
    }

    public func compare(query: VectorFingerprint, reference: VectorFingerprint) -> Comparison {
        SequenceMatcher.compare(query: query, reference: reference)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.rawFigure >= parameters.minimumSimilarity }

    public func makeIndex() -> VectorIndex { VectorIndex(neighbours: parameters.neighbours) }
}

/// nafp-small's segments as a file decodes: a segment starts every `hop` samples, and each batch of
/// `NAFPSmall.batch` is embedded once its last sample has arrived (the batches the whole signal would make,
/// so the same bits); only the samples from the next segment's start on are held.
public final class SegmentStream: PrintStream {
    /// The encoder and its FFT, or why the weights could not be read (said at the end).
    private let network: Result<(encoder: SeparableEncoder, fft: RealFFT), NeuralWeightsError>
    private let hop: Int
    private let step: Double
    /// Samples from `heldStart` (an index into the whole signal) on.
    private var held: [Float] = []
    private var heldStart = 0
    private var embedded = 0
    private var values: [Float] = []
    private var buffers = SeparableEncoder.Buffers()

    init(network: Result<NAFPSmall.Network, NeuralWeightsError>, hop: Int, step: Double) {
        self.network = network.map { ($0.encoder, RealFFT(size: $0.encoder.header.fft)) }
        (self.hop, self.step) = (hop, step)
    }

    public func consume(_ block: UnsafeBufferPointer<Float>) {
        guard case .success(let network) = network else { return }
        // Samples before the next segment's start (a hop longer than a segment) are never needed.
        let skip = held.isEmpty ? min(block.count, max(0, embedded * hop - heldStart)) : 0
        heldStart += skip
        held.append(contentsOf: UnsafeBufferPointer(rebasing: block[skip...]))
        embed(network.encoder, network.fft, all: false)
    }

    public func finish(duration: Double) throws -> VectorFingerprint {
        let (encoder, fft) = try network.get()
        embed(encoder, fft, all: true)
        return VectorFingerprint(dimension: encoder.header.embedding, values: values, times: (0..<embedded).map(UInt32.init),
                                 step: step, duration: duration)
    }

    /// Embeds every whole batch of segments whose samples have all arrived (`all`: every such segment).
    private func embed(_ encoder: SeparableEncoder, _ fft: RealFFT, all: Bool) {
        let segment = encoder.header.segment, end = heldStart + held.count
        let ready = end < segment ? 0 : (end - segment) / hop + 1
        while ready - embedded >= NAFPSmall.batch || (all && ready > embedded) {
            let batch = embedded..<min(embedded + NAFPSmall.batch, ready)
            values += encoder.embed(batch.map { s in
                let first = s * hop - heldStart
                return encoder.image(held[first..<(first + segment)], fft: fft)
            }, buffers: &buffers)
            embedded = batch.upperBound
        }
        let drop = min(held.count, max(0, embedded * hop - heldStart))
        held.removeFirst(drop)
        heldStart += drop
    }
}
