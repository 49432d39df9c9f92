import Foundation

/// How a system prints its answers, and which of its fields are the query, the reference, the offset and
/// the score. A field is a CSV column's header, a JSON key, or a regular expression's named group; the
/// offset may be one field less another (`"reference_start - query_start"`). A line with an empty
/// reference is a "no match"; a query with no line too.
public struct AnswerFormat: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// Comma-separated, with a header line (repeated header lines are skipped).
        case csv
        /// One JSON object a line.
        case jsonLines = "json-lines"
        /// Lines matching `pattern` (named groups); other lines are ignored.
        case regex
    }

    public var format: Kind
    /// csv only: the cell separator (default ","; Panako prints ";").
    public var separator: String?
    public var pattern: String?
    public var query: String
    public var reference: String
    public var offset: String
    /// Absent: the system gives no score; only its own answers are reported (no calibrated threshold).
    public var score: String?
    public var scoreScale: ScoreScale?

    /// What is wrong with the format, if anything.
    var problem: String? {
        if format == .regex {
            guard let pattern, (try? NSRegularExpression(pattern: pattern)) != nil else { return "answers.pattern: a regular expression is needed" }
            if let missing = fields.first(where: { !pattern.contains("(?<\($0)>") }) { return "answers.pattern has no group named \(missing)" }
        } else if pattern != nil { return "answers.pattern is for the regex format only" }
        if let separator, format != .csv || separator.count != 1 { return "answers.separator: one character, for the csv format only" }
        if (score == nil) != (scoreScale == nil) { return "answers: score and scoreScale go together" }
        return scoreScale?.problem
    }

    /// Every field the answers name.
    var fields: [String] { [query, reference] + offsetTerms + (score.map { [$0] } ?? []) }
    private var offsetTerms: [String] { offset.components(separatedBy: " - ").map { $0.trimmingCharacters(in: .whitespaces) } }

    /// One parsed line: the query file as printed, the reference as printed (nil: no match), the offset of
    /// the query's start in the reference in seconds, and the score mapped to [0, 1] (1 without a score).
    public struct Line: Sendable, Equatable {
        public var query: String
        public var reference: String?
        public var offset: Double
        public var score: Double
        public var rawScore: Double
    }

    /// Every answer line of `output`; a line that cannot be read is an error naming it.
    public func parse(_ output: String) throws -> [Line] {
        var lines: [Line] = [], header: [String]?
        let regex = try pattern.map { try NSRegularExpression(pattern: $0) }
        for (number, text) in output.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = String(text)
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let values: [String: String]
            switch format {
            case .csv:
                let cells = line.split(separator: separator?.first ?? ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                if header == nil || cells == header! { header = cells; continue }
                guard cells.count == header!.count else { throw unreadable(number, line, "\(cells.count) cells under a header of \(header!.count)") }
                values = Dictionary(zip(header!, cells), uniquingKeysWith: { a, _ in a })
            case .jsonLines:
                guard let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8)) else {
                    let nonNumber = line.range(of: #"\b(NaN|-?Infinity)\b"#, options: .regularExpression) != nil
                    throw unreadable(number, line, nonNumber ? "not JSON: NaN and Infinity are not JSON numbers" : "not valid JSON")
                }
                guard let object = parsed as? [String: Any] else { throw unreadable(number, line, "not a JSON object") }
                values = object.compactMapValues { value in value is NSNull ? nil : "\(value)" }
            case .regex:
                let range = NSRange(line.startIndex..., in: line)
                guard let regex, let m = regex.firstMatch(in: line, range: range) else { continue }
                values = Dictionary(uniqueKeysWithValues: fields.compactMap { name in
                    Range(m.range(withName: name), in: line).map { (name, String(line[$0])) }
                })
            }
            lines.append(try read(values, number: number, line: line))
        }
        return lines
    }

    private func read(_ values: [String: String], number: Int, line: String) throws -> Line {
        guard let query = values[self.query], !query.isEmpty else { throw unreadable(number, line, "no \(self.query)") }
        let reference = values[self.reference].flatMap { $0.isEmpty ? nil : $0 }
        guard reference != nil else { return Line(query: query, reference: nil, offset: 0, score: 0, rawScore: 0) }
        func value(_ name: String) throws -> Double {
            guard let text = values[name], let x = Double(text), x.isFinite else { throw unreadable(number, line, "\(name) is not a number") }
            return x
        }
        let terms = try offsetTerms.map(value)
        let offset = terms.dropFirst().reduce(terms[0], -)
        guard let score, let scoreScale else { return Line(query: query, reference: reference, offset: offset, score: 1, rawScore: 1) }
        let raw = try value(score)
        let bounds = scoreScale.bounds
        if !(bounds.lowerBound - 1e-9...bounds.upperBound + 1e-9).contains(raw) {
            throw unreadable(number, line, "\(score) \(raw) is outside the declared \(scoreScale.kind.rawValue) scale "
                             + (scoreScale.kind == .count ? "(a count is not negative)" : "of 0 to 1"))
        }
        return Line(query: query, reference: reference, offset: offset, score: scoreScale.unit(raw), rawScore: raw)
    }

    private func unreadable(_ number: Int, _ line: String, _ why: String) -> SystemError {
        SystemError(system: "answers", reason: "line \(number + 1) cannot be read (\(why)): \(line.prefix(120))")
    }
}

/// How a system's score maps to [0, 1], higher for a better match. Calibration sorts scores, so any
/// increasing map gives the same calibrated answers; the map only puts every system on one scale.
public struct ScoreScale: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// Already in [0, 1], higher is better.
        case unit
        /// A count (matching hashes): n / (n + half), so `half` matching hashes score 0.5.
        case count
        /// A distance in [0, 1] (a bit-error rate), lower is better: 1 - d.
        case distance
    }

    public var kind: Kind
    public var half: Double?

    var problem: String? {
        switch kind {
        case .count: half.map { $0 > 0 } == true ? nil : "answers.scoreScale: a count needs half above 0"
        case .unit, .distance: half == nil ? nil : "answers.scoreScale: half is for counts only"
        }
    }

    /// The raw scores the scale allows; a score outside is an error, never clamped.
    var bounds: ClosedRange<Double> { kind == .count ? 0...Double.greatestFiniteMagnitude : 0...1 }

    func unit(_ raw: Double) -> Double {
        switch kind {
        case .unit: min(1, max(0, raw))
        case .count: max(0, raw) / (max(0, raw) + half!)
        case .distance: 1 - min(1, max(0, raw))
        }
    }
}
