import CSoxr

/// A streaming soxr resampler (high quality, single-threaded so output bits never vary):
/// feed blocks, then `finish()`; memory follows the output, not the input.
final class StreamResampler {
    private let handle: soxr_t
    private let ratio: Double
    private let path: String
    private var scratch: [Float] = []

    init(from inputRate: Double, to outputRate: Double, path: String) throws {
        var error: soxr_error_t?
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)  // soxr's default "high quality" (20-bit)
        var runtime = soxr_runtime_spec(1)  // one thread: reproducible output
        guard let handle = soxr_create(inputRate, outputRate, 1, &error, &io, &quality, &runtime), error == nil else {
            throw AudioError.resampler(path: path, reason: error.map { String(cString: $0) } ?? "soxr_create failed")
        }
        self.handle = handle
        self.ratio = outputRate / inputRate
        self.path = path
    }

    deinit { soxr_delete(handle) }

    /// Resamples `input` (pass nil to flush) and appends the output.
    func process(_ input: UnsafeBufferPointer<Float>?, into output: inout [Float]) throws {
        let inputCount = input?.count ?? 0
        let capacity = Int(Double(inputCount) * ratio) + 1024
        if scratch.count < capacity { scratch = [Float](repeating: 0, count: capacity) }
        var consumed = 0
        repeat {
            var inputDone = 0, outputDone = 0
            let error = scratch.withUnsafeMutableBufferPointer { out -> soxr_error_t? in
                let base = input.map { UnsafeRawPointer($0.baseAddress! + consumed) }
                return soxr_process(handle, base, inputCount - consumed, &inputDone,
                                    out.baseAddress, out.count, &outputDone)
            }
            if let error { throw AudioError.resampler(path: path, reason: String(cString: error)) }
            output.append(contentsOf: scratch[..<outputDone])
            consumed += inputDone
            // Flushing: keep draining until soxr has nothing more to give.
            if input == nil && outputDone == 0 { break }
            if input != nil && inputDone == 0 && outputDone == 0 { break }
        } while input == nil || consumed < inputCount
    }
}

extension Audio {
    /// The same audio at `rate` (soxr, high quality), its length exactly `round(count · rate / sampleRate)`.
    /// `label` names the audio in errors.
    public func resampled(to rate: Double, label: String = "audio") throws -> Audio {
        if rate == sampleRate { return self }
        let resampler = try StreamResampler(from: sampleRate, to: rate, path: label)
        let expected = Int((Double(samples.count) * rate / sampleRate).rounded())
        var output: [Float] = []
        output.reserveCapacity(expected + 1024)
        try samples.withUnsafeBufferPointer { try resampler.process($0, into: &output) }
        try resampler.process(nil, into: &output)
        fit(&output, to: expected)
        return Audio(samples: output, sampleRate: rate)
    }
}

/// soxr's flush can leave a sample more or less than the exact ratio: trim or zero-pad to `count`.
/// In place, so the signal is never held twice.
func fit(_ samples: inout [Float], to count: Int) {
    if samples.count > count { samples.removeLast(samples.count - count) } else { samples.append(contentsOf: repeatElement(0, count: count - samples.count)) }
}
