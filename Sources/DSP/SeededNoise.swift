import CGSL

/// GSL calls abort() on errors unless told otherwise; we check return values ourselves.
private let gslErrorHandlerOff: Void = { _ = gsl_set_error_handler_off() }()

/// Seeded random draws on GSL's MT19937: the same seed gives the same sequence on every machine.
/// Not shareable between threads: make one per task, seeded from the run's seed.
public final class SeededNoise {
    public let seed: UInt64
    private let rng: UnsafeMutablePointer<gsl_rng>

    public init(seed: UInt64) {
        _ = gslErrorHandlerOff
        self.seed = seed
        rng = gsl_rng_alloc(fpb_rng_mt19937())
        gsl_rng_set(rng, UInt(truncatingIfNeeded: seed))
    }

    deinit { gsl_rng_free(rng) }

    /// A uniform draw in [0, 1).
    public func unit() -> Double { gsl_rng_uniform(rng) }

    /// A uniform integer in 0..<upperBound.
    public func integer(below upperBound: Int) -> Int {
        precondition(upperBound > 0)
        return Int(gsl_rng_uniform_int(rng, UInt(upperBound)))
    }

    /// White noise, uniform in [-amplitude, amplitude] (the thesis's test 3).
    public func uniform(count: Int, amplitude: Double) -> [Float] {
        (0..<count).map { _ in Float((2 * gsl_rng_uniform(rng) - 1) * amplitude) }
    }

    /// White Gaussian noise with standard deviation `sigma`.
    public func gaussian(count: Int, sigma: Double) -> [Float] {
        (0..<count).map { _ in Float(gsl_ran_gaussian_ziggurat(rng, sigma)) }
    }

    /// Pink (1/f) noise: Gaussian white noise through Paul Kellet's economy filter
    /// (±0.5 dB from 1/f above 1/100 of the sample rate), scaled to RMS `sigma`.
    public func pink(count: Int, sigma: Double) -> [Float] {
        let white = gaussian(count: count, sigma: 1)
        var b0: Float = 0, b1: Float = 0, b2: Float = 0
        var pink = white.map { w -> Float in
            b0 = 0.99765 * b0 + w * 0.0990460
            b1 = 0.96300 * b1 + w * 0.2965164
            b2 = 0.57000 * b2 + w * 1.0526913
            return b0 + b1 + b2 + w * 0.1848
        }
        let rms = (pink.reduce(0.0) { $0 + Double($1 * $1) } / Double(max(1, count))).squareRoot()
        if rms > 0 { pink = pink.map { Float(Double($0) * sigma / rms) } }
        return pink
    }
}
