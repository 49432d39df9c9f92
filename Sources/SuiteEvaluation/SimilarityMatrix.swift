import Degradation
import Evaluation
import Fingerprinting
import Foundation

/// The thesis's matrix for one algorithm and one test: rows are queries (the "unknown" files), columns
/// the references (the "original" files); nil where a query failed.
public struct SimilarityMatrix: Sendable, Codable, Equatable {
    public var algorithm: String
    public var test: String
    /// The source of each row.
    public var rows: [String]
    public var columns: [String]
    public var scores: [[Double?]]
    public var rawFigures: [[Double?]]
    public var offsets: [[Double?]]
    /// Per row, whether the own source's comparison passes the algorithm's documented threshold
    /// ("matched", as a catalog would answer it); nil in results written before it was recorded.
    public var matched: [Bool?]?

    public init(algorithm: String, test: String, rows: [String], columns: [String], scores: [[Double?]],
                rawFigures: [[Double?]], offsets: [[Double?]], matched: [Bool?]? = nil) {
        self.algorithm = algorithm
        self.test = test
        self.rows = rows
        self.columns = columns
        self.scores = scores
        self.rawFigures = rawFigures
        self.offsets = offsets
        self.matched = matched
    }

    /// Only the given rows, in that order.
    public func selecting(rows kept: [Int]) -> SimilarityMatrix {
        SimilarityMatrix(algorithm: algorithm, test: test, rows: kept.map { rows[$0] }, columns: columns, scores: kept.map { scores[$0] },
                         rawFigures: kept.map { rawFigures[$0] }, offsets: kept.map { offsets[$0] }, matched: matched.map { m in kept.map { m[$0] } })
    }

    /// A row is matched when its own source's comparison passes the algorithm's threshold.
    public func isMatched(_ row: Int) -> Bool { matched?[row] ?? false }

    /// The column of row `row`'s own source.
    public func diagonal(_ row: Int) -> Int? { columns.firstIndex(of: rows[row]) }

    /// A row is identified when its own reference scores strictly above every other reference.
    public func isIdentified(_ row: Int) -> Bool {
        guard let d = diagonal(row), let own = scores[row][d] else { return false }
        return scores[row].indices.allSatisfy { $0 == d || (scores[row][$0] ?? -1) < own }
    }

    /// The reference a row ranks first (its best score; ties keep the column order), if any.
    public func topColumn(_ row: Int) -> Int? {
        scores[row].indices.filter { scores[row][$0] != nil }.max { (scores[row][$0]!, -$0) < (scores[row][$1]!, -$1) }
    }

    /// The best score of a row, the maximum over its references.
    public func rowMaximum(_ row: Int) -> Double? { scores[row].compactMap { $0 }.max() }

    public var statistics: MatrixStatistics { MatrixStatistics(self, rows: Array(rows.indices)) }
}

/// Identified n/N, mean diagonal, mean off-diagonal and mean margin over some rows of a matrix.
public struct MatrixStatistics: Sendable, Equatable {
    public var identified: Int
    public var count: Int
    /// The own source's score of each row that has one.
    public var diagonals: [Double]
    public var meanDiagonal: Double?
    public var meanOffDiagonal: Double?
    /// Mean over rows of (own score − best other score): positive when sources stand out.
    public var meanMargin: Double?

    public init(_ m: SimilarityMatrix, rows: [Int]) {
        var diagonals: [Double] = [], others: [Double] = [], margins: [Double] = []
        for row in rows {
            guard let d = m.diagonal(row), let own = m.scores[row][d] else { continue }
            diagonals.append(own)
            let rest = m.scores[row].enumerated().filter { $0.offset != d }.compactMap(\.element)
            others += rest
            if let best = rest.max() { margins.append(own - best) }
        }
        func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
        identified = rows.filter(m.isIdentified).count
        count = rows.count
        self.diagonals = diagonals
        meanDiagonal = mean(diagonals)
        meanOffDiagonal = mean(others)
        meanMargin = mean(margins)
    }

    /// Share of rows identified (top-1 accuracy).
    public var accuracy: Double { count == 0 ? 0 : Double(identified) / Double(count) }
}
