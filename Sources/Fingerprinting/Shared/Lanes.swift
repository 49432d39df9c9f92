/// A vector's largest and smallest lane, its halves folded onto each other by comparisons: the standard library's
/// `max()` and `min()` of a vector (and `pointwiseMax`) are calls that store the lanes and go one by one, slower here
/// than the loops they end. For values that are not NaN, the same value.
extension SIMD8 where Scalar == Float {
    @inline(__always) var largestLane: Float {
        let (low, high) = (lowHalf, highHalf), four = low.replacing(with: high, where: high .> low)
        return max(max(four[0], four[1]), max(four[2], four[3]))
    }

    @inline(__always) var smallestLane: Float {
        let (low, high) = (lowHalf, highHalf), four = low.replacing(with: high, where: high .< low)
        return min(min(four[0], four[1]), min(four[2], four[3]))
    }
}

extension SIMD16 where Scalar == Float {
    @inline(__always) var largestLane: Float {
        let (low, high) = (lowHalf, highHalf)
        return low.replacing(with: high, where: high .> low).largestLane
    }
}
