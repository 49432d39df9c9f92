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
    /// Full 1-D decomposition in place of `count` (a power of two) values spaced `stride` apart, using
    /// `scratch` (at least `count` values). Layout: overall average first, then details coarsest to finest.
    public static func transform(_ data: UnsafeMutablePointer<Float>, count: Int, stride: Int = 1,
                                 form: HaarForm, scratch: UnsafeMutablePointer<Float>) {
        precondition(count > 0 && count & (count - 1) == 0, "Haar length must be a power of two")
        let factor = form.factor
        // Hot loop (once per image row and column): the averages shrink in place in `scratch`, each
        // level's details go straight to their final place; wrapping index arithmetic, bounds known.
        for i in 0..<count { scratch[i] = data[i &* stride] }
        var length = count
        while length > 1 {
            let half = length / 2
            for i in 0..<half {
                let a = scratch[2 &* i], b = scratch[2 &* i &+ 1]
                scratch[i] = (a + b) * factor
                data[(half &+ i) &* stride] = (a - b) * factor
            }
            length = half
        }
        data[0] = scratch[0]
    }

    /// 1-D decomposition of an array.
    public static func transform(_ values: [Float], form: HaarForm) -> [Float] {
        var result = values
        var scratch = [Float](repeating: 0, count: values.count)
        result.withUnsafeMutableBufferPointer { data in
            scratch.withUnsafeMutableBufferPointer { transform(data.baseAddress!, count: data.count, form: form, scratch: $0.baseAddress!) }
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
        let (rows, columns) = (result.rows, result.columns)
        precondition(rows > 0 && rows & (rows - 1) == 0, "Haar length must be a power of two")
        var scratch = [Float](repeating: 0, count: rows * columns)
        let factor = form.factor
        result.values.withUnsafeMutableBufferPointer { buffer in
            scratch.withUnsafeMutableBufferPointer { scratchBuffer in
                let data = buffer.baseAddress!, averages = scratchBuffer.baseAddress!
                for row in 0..<rows {
                    transform(data + row * columns, count: columns, form: form, scratch: averages)
                }
                // Every column at once, a whole row of them per step (so they are computed several at a
                // time): the same sums and differences as `transform` down each column, in another order.
                averages.update(from: data, count: rows * columns)
                var length = rows
                while length > 1 {
                    let half = length / 2
                    for i in 0..<half {
                        let a = averages + 2 * i * columns, b = a + columns, average = averages + i * columns
                        let detail = data + (half + i) * columns
                        for c in 0..<columns {
                            let x = a[c], y = b[c]
                            average[c] = (x + y) * factor
                            detail[c] = (x - y) * factor
                        }
                    }
                    length = half
                }
                data.update(from: averages, count: columns)
            }
        }
    }
}
