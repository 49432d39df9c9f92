import Degradation
import Evaluation
import Fingerprinting
import Foundation

/// One numeric parameter of a degradation stage, swept: `speed factor`, `codec kbps`, `lowpass hz`.
public struct StageAxis: Sendable, Equatable {
    public var unit: String
    public var parameter: String
    /// The stage's other fields, fixed (a codec's format).
    public var fixed: [String: String]

    public init(unit: String, parameter: String, fixed: [String: String] = [:]) {
        self.unit = unit
        self.parameter = parameter
        self.fixed = fixed
    }

    /// The stage at a level, checked as a suite file's stage is.
    public func spec(at level: Double) throws -> StageSpec {
        var fields: [String: Any] = fixed
        fields[parameter] = level
        let data = try JSONSerialization.data(withJSONObject: [unit: fields])
        do { return try decodeStrictly(StageSpec.self, from: data) } catch let error as StrictDecodingError {
            throw ChoiceError("--unit \(unit) --parameter \(parameter) at \(String(format: "%g", level))", reason: error.reason)
        }
    }

    /// How the unit's parameter hurts, as the unit says (`StageUnit.sweepSense`).
    package var sense: (neutral: Double?, largerIsHarder: Bool) {
        StageUnits.all.first { $0.name == unit }?.sweepSense(parameter) ?? (nil, true)
    }

    /// The level that changes nothing, for units that hurt in both directions (speed, tempo, pitch, gain):
    /// breaking points are found on each side of it.
    public var neutral: Double? { sense.neutral }

    /// For one-sided units: whether a larger level is harder (a lower bitrate, cut-off or SNR is harder).
    public var largerIsHarder: Bool { sense.largerIsHarder }
}

/// One algorithm at one level.
public struct SweepPoint: Sendable, Codable, Equatable {
    public var algorithm: String
    public var level: Double
    public var identified: Int
    public var count: Int
    public var meanDiagonal: Double?
    public var meanMargin: Double?
    public var accuracy: Double { count == 0 ? 0 : Double(identified) / Double(count) }

    public init(algorithm: String, level: Double, identified: Int, count: Int, meanDiagonal: Double?, meanMargin: Double?) {
        self.algorithm = algorithm
        self.level = level
        self.identified = identified
        self.count = count
        self.meanDiagonal = meanDiagonal
        self.meanMargin = meanMargin
    }
}

/// Where an algorithm's top-1 accuracy first falls below a threshold, walking from easy to hard:
/// the grid levels on both sides, and the crossing refined by bisection between them.
public struct BreakingPoint: Sendable, Codable, Equatable {
    public var algorithm: String
    public var threshold: Double
    /// The last grid level (easy side) still at or above the threshold, with its accuracy.
    public var lastAbove: SweepPoint?
    /// The first grid level below it.
    public var firstBelow: SweepPoint?
    /// The refined crossing (nil when the accuracy never crosses on the grid).
    public var level: Double?
    public var tolerance: Double
    /// Every level bisection evaluated, in order.
    public var evaluations: [SweepPoint]
    /// For two-sided axes, which side of the neutral level ("below" or "above").
    public var side: String?

    package init(algorithm: String, threshold: Double, lastAbove: SweepPoint?, firstBelow: SweepPoint?, level: Double?,
                 tolerance: Double, evaluations: [SweepPoint], side: String? = nil) {
        self.algorithm = algorithm
        self.threshold = threshold
        self.lastAbove = lastAbove
        self.firstBelow = firstBelow
        self.level = level
        self.tolerance = tolerance
        self.evaluations = evaluations
        self.side = side
    }
}
