extension RandomAccessCollection where Index == Int {
    /// The first index whose element is not `below` a bound, in a collection ordered so that every
    /// element `below` it comes first: a binary search (a lower bound).
    func lowerBound(_ below: (Element) -> Bool) -> Int {
        var low = startIndex, high = endIndex
        while low < high {
            let middle = (low + high) / 2
            if below(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
