/// The Haar wavelet in its two classic forms (Stollnitz, DeRose & Salesin, "Wavelets for computer graphics").
public enum HaarForm: String, Sendable, Codable {
    /// Orthonormal: pairs become (a + b)/√2 and (a − b)/√2; energy is preserved. This is the
    /// thesis's "normalised" form up to its extra division by √n, a uniform scale that changes no
    /// coefficient's rank or sign (GSL's `gsl_wavelet_haar` computes exactly this form).
    case normalised
    /// Averaging and differencing: (a + b)/2 and (a − b)/2 (the thesis's Table 1).
    case averaging

    var factor: Float {
        switch self {
        case .normalised: return Float(0.5).squareRoot()
        case .averaging: return 0.5
        }
    }
}

public enum Haar {
    /// Full 1-D decomposition in place of `count` (a power of two) values spaced `stride` apart.
    /// Result layout: overall average first, then details from the coarsest to the finest.
    public static func transform(_ data: UnsafeMutablePointer<Float>, count: Int, stride: Int = 1,
                                 form: HaarForm, scratch: inout [Float]) {
        precondition(count > 0 && count & (count - 1) == 0, "Haar length must be a power of two")
        if scratch.count < count { scratch = [Float](repeating: 0, count: count) }
        let factor = form.factor
        var length = count
        while length > 1 {
            let half = length / 2
            for i in 0..<half {
                let a = data[2 * i * stride], b = data[(2 * i + 1) * stride]
                scratch[i] = (a + b) * factor
                scratch[half + i] = (a - b) * factor
            }
            for i in 0..<length { data[i * stride] = scratch[i] }
            length = half
        }
    }

    /// 1-D decomposition of an array.
    public static func transform(_ values: [Float], form: HaarForm) -> [Float] {
        var result = values
        var scratch: [Float] = []
        result.withUnsafeMutableBufferPointer { transform($0.baseAddress!, count: $0.count, form: form, scratch: &scratch) }
        return result
    }

    /// Standard 2-D decomposition: every row fully decomposed, then every column.
    public static func transform2D(_ image: Matrix, form: HaarForm) -> Matrix {
        var result = image
        var scratch: [Float] = []
        result.values.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            for row in 0..<image.rows {
                transform(base + row * image.columns, count: image.columns, form: form, scratch: &scratch)
            }
            for column in 0..<image.columns {
                transform(base + column, count: image.rows, stride: image.columns, form: form, scratch: &scratch)
            }
        }
        return result
    }
}
