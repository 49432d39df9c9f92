/// An index a catalog can keep in an index file (`fpbench index build`): every index an algorithm
/// declares is one, so `AnyAlgorithm` can hold it.
public protocol StoredIndex: FingerprintIndex {
    /// Writes the sealed index into an index file's sections ...
    func save(to writer: inout IndexFile.Writer)
    /// ... and reads it back (into an index made by the same algorithm, so it knows its parameters).
    mutating func load(from reader: IndexFile.Reader) throws
}

extension BruteForceIndex: StoredIndex {
    public func save(to writer: inout IndexFile.Writer) { writer.set("references", Double(count)) }
    public mutating func load(from reader: IndexFile.Reader) throws { count = try reader.integer("references", in: 0...reader.header.references.count) }
}
