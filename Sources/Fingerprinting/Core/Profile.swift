/// One parameter of an algorithm, with its value and where that value comes from.
public struct Parameter: Sendable, Codable, Equatable {
    public var name: String
    public var value: String
    /// A citation (paper and section, thesis page) or "our choice: <why>".
    public var source: String

    public init(_ name: String, _ value: CustomStringConvertible, source: String) {
        self.name = name
        self.value = value.description
        self.source = source
    }
}

/// An algorithm's full parameter set, in a fixed order, each value with its provenance.
/// Logged with every result, and part of every fingerprint cache key.
public struct Profile: Sendable, Codable, Equatable {
    public var parameters: [Parameter]

    public init(_ parameters: [Parameter]) { self.parameters = parameters }

    /// A stable one-line rendering: "name=value;name=value".
    public var key: String { parameters.map { "\($0.name)=\($0.value)" }.joined(separator: ";") }
}

/// Where the values come from; one constant per document so citations read the same everywhere.
/// The full references are in README.md, \"References\".
public enum Citation {
    public static let thesis = "Brandner 2013"
    public static let balujaCovell = "Baluja & Covell 2008"
    public static let soundFingerprinting = "SoundFingerprinting defaults"
    public static let wang = "Wang 2003"
    public static let audfprint = "audfprint (Ellis 2014)"
    public static let haitsmaKalker = "Haitsma & Kalker 2002"
}
