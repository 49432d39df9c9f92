import CFFTW
import Foundation

/// FFTW plans, one per size, made once and reused. FFTW's planner is not thread-safe, so creation
/// is guarded by one lock; executing a plan on a caller's own buffers is safe from any thread.
/// FFTW_ESTIMATE: measured planning picks different codelets from run to run, and so different bits.
final class FFTPlanCache: @unchecked Sendable {
    static let shared = FFTPlanCache()
    private let lock = NSLock()
    private var plans: [Int: OpaquePointer] = [:]

    func realForwardPlan(size: Int) -> OpaquePointer {
        lock.lock()
        defer { lock.unlock() }
        if let plan = plans[size] { return plan }
        let input = fftwf_alloc_real(size)!
        let output = fftwf_alloc_complex(size / 2 + 1)!
        defer { fftwf_free(input); fftwf_free(output) }
        let plan = fftwf_plan_dft_r2c_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE))!
        plans[size] = plan
        return plan
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
        if let window {
            for i in 0..<n { input[i] = frame[i] * window[i] }
        } else {
            for i in 0..<n { input[i] = frame[i] }
        }
        for i in n..<size { input[i] = 0 }
        fftwf_execute_dft_r2c(plan, input, output)
        return body(UnsafeBufferPointer(start: UnsafeRawPointer(output).assumingMemoryBound(to: (Float, Float).self),
                                        count: binCount))
    }

    /// |X[k]|² for k = 0 ... size/2, written into `power`.
    public func powerSpectrum(_ frame: UnsafeBufferPointer<Float>, window: [Float]? = nil, into power: inout [Float]) {
        if power.count != binCount { power = [Float](repeating: 0, count: binCount) }
        transform(frame, window: window) { bins in
            for k in 0..<bins.count { power[k] = bins[k].0 * bins[k].0 + bins[k].1 * bins[k].1 }
        }
    }

    /// Convenience for tests and one-off use: the complex spectrum as an array.
    public func spectrum(_ samples: [Float]) -> [(re: Float, im: Float)] {
        samples.withUnsafeBufferPointer { frame in transform(frame) { $0.map { (re: $0.0, im: $0.1) } } }
    }
}
