import CFFTW
import Foundation

/// FFTW plans, one per size, made once and reused. FFTW's planner is not thread-safe, so creation
/// is guarded by one lock; executing a plan on a caller's own buffers is safe from any thread.
/// FFTW_ESTIMATE: measured planning picks different codelets from run to run, and so different bits.
final class FFTPlanCache: @unchecked Sendable {
    static let shared = FFTPlanCache()
    private let lock = NSLock()
    private var plans: [Int: OpaquePointer] = [:]

    /// The plan stored under `key` (size for forward, -size for inverse plans), made by `make` once.
    func plan(key: Int, make: () -> OpaquePointer) -> OpaquePointer {
        lock.lock()
        defer { lock.unlock() }
        if let plan = plans[key] { return plan }
        let plan = make()
        plans[key] = plan
        return plan
    }

    func realForwardPlan(size: Int) -> OpaquePointer {
        plan(key: size) {
            let input = fftwf_alloc_real(size)!, output = fftwf_alloc_complex(size / 2 + 1)!
            defer { fftwf_free(input); fftwf_free(output) }
            return fftwf_plan_dft_r2c_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE))!
        }
    }
}

/// A real forward FFT of one size, with its own FFTW-aligned buffers: make one per thread.
/// Unnormalised, as FFTW computes it: X[k] = Σ x[n]·e^(-2πikn/N).
public final class RealFFT {
    public let size: Int
    public var binCount: Int { size / 2 + 1 }
    private let plan: OpaquePointer
    private let input: UnsafeMutablePointer<Float>
    private let output: UnsafeMutablePointer<fftwf_complex>

    public init(size: Int) {
        precondition(size > 0, "FFT size must be positive")
        self.size = size
        plan = FFTPlanCache.shared.realForwardPlan(size: size)
        input = fftwf_alloc_real(size)!
        output = fftwf_alloc_complex(size / 2 + 1)!
    }

    deinit {
        fftwf_free(input)
        fftwf_free(output)
    }

    /// Transforms `frame` (at most `size` samples, zero-padded), optionally multiplied by `window`,
    /// and hands the complex bins (re, im) to `body`.
    public func transform<R>(_ frame: UnsafeBufferPointer<Float>, window: [Float]? = nil,
                             _ body: (UnsafeBufferPointer<(Float, Float)>) -> R) -> R {
        let n = min(frame.count, size)
        if n > 0, let window {
            // Through raw buffers, so the products are computed several at a time (the same products).
            window.withUnsafeBufferPointer { window in
                for i in 0..<n { input[i] = frame[i] * window[i] }
            }
        } else if let samples = frame.baseAddress {
            input.update(from: samples, count: n)
        }
        (input + n).update(repeating: 0, count: size - n)
        fftwf_execute_dft_r2c(plan, input, output)
        return body(UnsafeBufferPointer(start: UnsafeRawPointer(output).assumingMemoryBound(to: (Float, Float).self),
                                        count: binCount))
    }

    /// |X[k]|² for k = 0 ... size/2, written into `power`.
    public func powerSpectrum(_ frame: UnsafeBufferPointer<Float>, window: [Float]? = nil, into power: inout [Float]) {
        if power.count != binCount { power = [Float](repeating: 0, count: binCount) }
        transform(frame, window: window) { bins in
            power.withUnsafeMutableBufferPointer { power in
                for k in 0..<bins.count { power[k] = bins[k].0 * bins[k].0 + bins[k].1 * bins[k].1 }
            }
        }
    }

    /// Convenience for tests and one-off use: the complex spectrum as an array.
    public func spectrum(_ samples: [Float]) -> [(re: Float, im: Float)] {
        samples.withUnsafeBufferPointer { frame in transform(frame) { $0.map { (re: $0.0, im: $0.1) } } }
    }
}

/// Linear convolution of `signal` with `kernel` through FFTW (r2c, multiply, c2r), trimmed to the
/// signal's length: what an impulse response does to a recording.
public func convolve(_ signal: [Float], with kernel: [Float]) -> [Float] {
    guard !signal.isEmpty, !kernel.isEmpty else { return signal }
    var size = 1
    while size < signal.count + kernel.count - 1 { size <<= 1 }
    let forward = RealFFT(size: size)
    let a = signal.withUnsafeBufferPointer { frame in forward.transform(frame) { Array($0) } }
    let b = kernel.withUnsafeBufferPointer { frame in forward.transform(frame) { Array($0) } }
    let product = zip(a, b).map { x, y in (x.0 * y.0 - x.1 * y.1, x.0 * y.1 + x.1 * y.0) }
    return Array(inverseRealFFT(product, size: size).prefix(signal.count))
}

/// The inverse of `RealFFT`, scaled by 1/N so that a forward-inverse round trip returns the input.
public func inverseRealFFT(_ bins: [(Float, Float)], size: Int) -> [Float] {
    precondition(bins.count == size / 2 + 1)
    let plan = FFTPlanCache.shared.realInversePlan(size: size)
    let input = fftwf_alloc_complex(bins.count)!, output = fftwf_alloc_real(size)!
    defer { fftwf_free(input); fftwf_free(output) }
    for (k, bin) in bins.enumerated() { input[k] = bin }
    fftwf_execute_dft_c2r(plan, input, output)  // c2r destroys its input; ours is a scratch copy
    let scale = 1 / Float(size)
    return (0..<size).map { output[$0] * scale }
}

extension FFTPlanCache {
    func realInversePlan(size: Int) -> OpaquePointer {
        plan(key: -size) {
            let input = fftwf_alloc_complex(size / 2 + 1)!, output = fftwf_alloc_real(size)!
            defer { fftwf_free(input); fftwf_free(output) }
            return fftwf_plan_dft_c2r_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE))!
        }
    }
}
