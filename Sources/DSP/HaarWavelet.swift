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
    /// Full decomposition in place of `count` (a power of two) vectors of `width` values, vector i at
    /// data[i · width ..< (i + 1) · width], each component on its own: a row of values (`width` 1), or every
    /// column of an image at once (`width` its columns: a row of them per step, computed several at a time).
    /// `scratch` holds count × width values. Layout: overall average first, then details coarsest to finest.
    public static func transform(_ data: UnsafeMutablePointer<Float>, count: Int, width: Int = 1,
                                 form: HaarForm, scratch: UnsafeMutablePointer<Float>) {
        precondition(count > 0 && count & (count - 1) == 0, "Haar length must be a power of two")
        let factor = form.factor
        // Hot loop (once per image row, and once for all its columns): the averages shrink in place in
        // `scratch`, each level's details go straight to their final place; wrapping index arithmetic.
        scratch.update(from: data, count: count &* width)
        var length = count
        while length > 1 {
            let half = length / 2
            for i in 0..<half {
                let a = scratch + 2 &* i &* width, b = a + width, average = scratch + i &* width, detail = data + (half &+ i) &* width
                for c in 0..<width {
                    let x = a[c], y = b[c]
                    average[c] = (x + y) * factor
                    detail[c] = (x - y) * factor
                }
            }
            length = half
        }
        data.update(from: scratch, count: width)
    }

    /// 1-D decomposition of an array.
    public static func transform(_ values: [Float], form: HaarForm) -> [Float] {
        var result = values
        withScratch(values.count) { scratch in
            result.withUnsafeMutableBufferPointer { transform($0.baseAddress!, count: $0.count, form: form, scratch: scratch) }
        }
        return result
    }

    /// Standard 2-D decomposition: every row fully decomposed, then every column.
    public static func transform2D(_ image: Matrix, form: HaarForm) -> Matrix {
        var result = image
        transform2D(&result, form: form)
        return result
    }

    /// The standard 2-D decomposition in place.
    public static func transform2D(_ result: inout Matrix, form: HaarForm) {
        let columns = result.columns
        withScratch(columns) { averages in
            result.values.withUnsafeMutableBufferPointer { data in
                for row in 0..<result.rows { transform(data.baseAddress! + row * columns, count: columns, form: form, scratch: averages) }
            }
        }
        transformColumns(&result, form: form)
    }

    /// The second half of the standard 2-D decomposition: every column, of rows already decomposed each on its
    /// own (a spectral image's rows can be, once each, as they arrive: `WaveletImages`).
    public static func transformColumns(_ result: inout Matrix, form: HaarForm) {
        let (rows, columns) = (result.rows, result.columns)
        withScratch(rows * columns) { averages in
            result.values.withUnsafeMutableBufferPointer { transform($0.baseAddress!, count: rows, width: columns, form: form, scratch: averages) }
        }
    }

    private static func withScratch(_ count: Int, _ body: (UnsafeMutablePointer<Float>) -> Void) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: count) { body($0.baseAddress!) }
    }
}
