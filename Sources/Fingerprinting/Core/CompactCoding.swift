import Foundation

/// The fingerprint cache's binary form of a `Fingerprint`: its top-level fields by name, arrays of
/// fixed-width numbers as raw bytes (what a fingerprint mostly is), any other field as JSON. Decoding a
/// cached fingerprint this way takes a copy per array instead of parsing every number, which is what
/// made a warm run slow. Fingerprints are flat structs with synthesized `Codable` (the conformance kit
/// round-trips every registered algorithm's through it); other shapes are refused, never guessed.
/// Layout: "FPC1", field count (UInt32), then per field: name (UInt16 length + UTF-8), tag (UInt8),
/// payload (a raw array: UInt32 count + native-endian elements; JSON: UInt32 length + bytes).
public enum CompactCoding {
    static let magic = Data("FPC1".utf8)

    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = FieldEncoder()
        try value.encode(to: encoder)
        if let problem = encoder.fields.problem { throw CompactCodingError(description: problem) }
        var data = magic
        append(UInt32(encoder.fields.entries.count), to: &data)
        for (name, field) in encoder.fields.entries {
            append(UInt16(name.utf8.count), to: &data)
            data.append(contentsOf: name.utf8)
            data.append(field.tag.rawValue)
            append(UInt32(field.count), to: &data)
            data.append(field.bytes)
        }
        return data
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let fields = try data.withUnsafeBytes { raw in
            Dictionary(try layout(of: raw).map { ($0.name, Field(tag: $0.tag, count: $0.count, bytes: Data(UnsafeRawBufferPointer(rebasing: raw[$0.bytes])))) },
                       uniquingKeysWith: { first, _ in first })
        }
        return try T(from: FieldDecoder(fields: fields))
    }

    /// Throws, with the reason, unless `bytes` are exactly one compact fingerprint's fields; reads the
    /// field table only, not the arrays.
    public static func check(_ bytes: UnsafeRawBufferPointer) throws { _ = try layout(of: bytes) }

    /// Each field's name, kind, element count and where its payload lies in `bytes`.
    private static func layout(of bytes: UnsafeRawBufferPointer) throws -> [(name: String, tag: Field.Tag, count: Int, bytes: Range<Int>)] {
        var reader = ByteReader(bytes: bytes)
        guard Data(try reader.take(magic.count)) == magic else { throw CompactCodingError(description: "not a compact fingerprint (no FPC1 header)") }
        var fields: [(name: String, tag: Field.Tag, count: Int, bytes: Range<Int>)] = []
        for _ in 0..<(try reader.integer(UInt32.self)) {
            let name = String(decoding: try reader.take(Int(try reader.integer(UInt16.self))), as: UTF8.self)
            guard let tag = Field.Tag(rawValue: try reader.integer(UInt8.self)) else { throw CompactCodingError(description: "unknown field kind in \(name)") }
            let count = Int(try reader.integer(UInt32.self)), start = reader.position
            _ = try reader.take(count * tag.elementSize)
            fields.append((name, tag, count, start..<reader.position))
        }
        guard reader.position == bytes.count else { throw CompactCodingError(description: "\(bytes.count - reader.position) bytes after the last field") }
        return fields
    }

    private static func append<I: FixedWidthInteger>(_ value: I, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}

public struct CompactCodingError: Error, CustomStringConvertible {
    public var description: String
}

/// One field: a raw array of `count` elements, or `count` bytes of JSON.
struct Field {
    enum Tag: UInt8 {
        case json = 0, uint16, uint32, uint64, float, double, int64

        var elementSize: Int {
            switch self {
            case .json: return 1
            case .uint16: return 2
            case .uint32, .float: return 4
            case .uint64, .double, .int64: return 8
            }
        }
    }

    var tag: Tag
    var count: Int
    var bytes: Data

    /// Raw arrays (and single numbers) of the element types fingerprints are made of; nil for anything else.
    static func raw(_ value: Any) -> Field? {
        func field<E>(_ array: [E], _ tag: Tag) -> Field {
            Field(tag: tag, count: array.count, bytes: array.withUnsafeBytes { Data($0) })
        }
        switch value {
        case let a as [UInt16]: return field(a, .uint16)
        case let a as [UInt32]: return field(a, .uint32)
        case let a as [UInt64]: return field(a, .uint64)
        case let a as [Float]: return field(a, .float)
        case let a as [Double]: return field(a, .double)
        case let a as [Int64]: return field(a, .int64)
        case let x as Double: return field([x], .double)
        case let x as Int: return field([Int64(x)], .int64)
        default: return nil
        }
    }

    /// The field as a `T`: a raw array or number read back, or JSON decoded.
    func value<T: Decodable>(_ type: T.Type, name: String) throws -> T {
        func array<E>(_ element: E.Type) -> [E] {
            [E](unsafeUninitializedCapacity: count) { buffer, initialized in
                bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(count * MemoryLayout<E>.size))) }
                initialized = count
            }
        }
        let decoded: Any?
        switch (tag, type) {
        case (.json, _): return try JSONDecoder().decode(T.self, from: bytes)
        case (.uint16, is [UInt16].Type): decoded = array(UInt16.self)
        case (.uint32, is [UInt32].Type): decoded = array(UInt32.self)
        case (.uint64, is [UInt64].Type): decoded = array(UInt64.self)
        case (.float, is [Float].Type): decoded = array(Float.self)
        case (.double, is [Double].Type): decoded = array(Double.self)
        case (.int64, is [Int64].Type): decoded = array(Int64.self)
        case (.double, is Double.Type) where count == 1: decoded = array(Double.self)[0]
        case (.int64, is Int.Type) where count == 1: decoded = Int(exactly: array(Int64.self)[0])
        default: decoded = nil
        }
        guard let result = decoded as? T else { throw CompactCodingError(description: "field \(name) holds \(tag), not \(T.self)") }
        return result
    }
}

/// A cursor over bytes that refuses to read past their end.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, position + count <= bytes.count else { throw CompactCodingError(description: "truncated compact fingerprint") }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    mutating func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        I(littleEndian: try take(MemoryLayout<I>.size).loadUnaligned(as: I.self))
    }
}

/// The fields written so far, and the first shape the format cannot hold.
private final class Fields {
    var entries: [(String, Field)] = []
    var problem: String?
}

private struct FieldEncoder: Encoder {
    let fields = Fields()
    var codingPath: [CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Container(fields: fields))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer { refuse("a fingerprint must be a struct of named fields").unkeyedContainer() }
    func singleValueContainer() -> SingleValueEncodingContainer { refuse("a fingerprint must be a struct of named fields").singleValueContainer() }

    /// Records the problem and hands out an encoder nothing is kept from, so encoding can finish and throw.
    private func refuse(_ problem: String) -> Encoder {
        if fields.problem == nil { fields.problem = problem }
        return JSONScratch()
    }

    struct Container<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let fields: Fields
        var codingPath: [CodingKey] = []

        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let field = try Field.raw(value) ?? {
                let json = try JSONEncoder().encode(value)
                return Field(tag: .json, count: json.count, bytes: json)
            }()
            fields.entries.append((key.stringValue, field))
        }
        mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type, forKey key: Key) -> KeyedEncodingContainer<N> {
            fields.problem = fields.problem ?? "nested containers (\(key.stringValue)) are not supported: give the field a Codable type of its own"
            return JSONScratch().container(keyedBy: N.self)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
            fields.problem = fields.problem ?? "nested containers (\(key.stringValue)) are not supported: give the field a Codable type of its own"
            return JSONScratch().unkeyedContainer()
        }
        mutating func superEncoder() -> Encoder { fields.problem = fields.problem ?? "superEncoder is not supported"; return JSONScratch() }
        mutating func superEncoder(forKey key: Key) -> Encoder { superEncoder() }
    }
}

/// An encoder whose output is thrown away: what a refused shape writes into.
private struct JSONScratch: Encoder {
    var codingPath: [CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(FieldEncoder.Container(fields: Fields())) }
    func unkeyedContainer() -> UnkeyedEncodingContainer { Discard() }
    func singleValueContainer() -> SingleValueEncodingContainer { Discard() }

    struct Discard: UnkeyedEncodingContainer, SingleValueEncodingContainer {
        var codingPath: [CodingKey] = []
        var count = 0
        mutating func encodeNil() throws {}
        mutating func encode<T: Encodable>(_ value: T) throws {}
        mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type) -> KeyedEncodingContainer<N> { JSONScratch().container(keyedBy: N.self) }
        mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer { Discard() }
        mutating func superEncoder() -> Encoder { JSONScratch() }
    }
}

private struct FieldDecoder: Decoder {
    let fields: [String: Field]
    var codingPath: [CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(fields: fields))
    }
    func unkeyedContainer() throws -> UnkeyedDecodingContainer { throw CompactCodingError(description: "a fingerprint must be a struct of named fields") }
    func singleValueContainer() throws -> SingleValueDecodingContainer { throw CompactCodingError(description: "a fingerprint must be a struct of named fields") }

    struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: Field]
        var codingPath: [CodingKey] = []
        var allKeys: [Key] { fields.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }
        func decodeNil(forKey key: Key) throws -> Bool { fields[key.stringValue] == nil }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let field = fields[key.stringValue] else { throw CompactCodingError(description: "field \(key.stringValue) is missing") }
            return try field.value(T.self, name: key.stringValue)
        }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
            throw CompactCodingError(description: "nested containers are not supported")
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer { throw CompactCodingError(description: "nested containers are not supported") }
        func superDecoder() throws -> Decoder { throw CompactCodingError(description: "superDecoder is not supported") }
        func superDecoder(forKey key: Key) throws -> Decoder { try superDecoder() }
    }
}
