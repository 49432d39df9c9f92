import BenchmarkEvaluation
import Degradation
import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms
import Reporting
import SuiteEvaluation
import Sweeps
import Testing

/// A JSON value, decoded strictly (a boolean is never a number).
indirect enum JSON: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSON]), object([String: JSON])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) } else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSON].self) { self = .array(a) } else { self = .object(try c.decode([String: JSON].self)) }
    }

    static func parse(_ data: Data) throws -> JSON { try JSONDecoder().decode(JSON.self, from: data) }

    var object: [String: JSON]? { if case .object(let o) = self { return o } else { return nil } }
}

/// The part of JSON Schema (2020-12) our schemas use; a keyword outside it is an error, so a schema
/// cannot rely on something this check does not enforce.
struct SchemaValidator {
    /// Schemas by their `$id`.
    let schemas: [String: JSON]
    static let known: Set<String> = ["$schema", "$id", "$defs", "$ref", "title", "description", "type", "enum", "const", "properties",
                                     "required", "additionalProperties", "items", "minItems", "maxItems", "minProperties", "maxProperties",
                                     "propertyNames", "pattern", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                     "oneOf", "allOf", "if", "then", "else", "default"]

    /// Every violation of `schema` (within the schema whose `$id` is `base`) by `value`, as "path: reason".
    func errors(_ value: JSON, _ schema: JSON, base: String, path: String = "$") -> [String] {
        if case .bool(let allowed) = schema { return allowed ? [] : ["\(path): not allowed"] }
        guard let s = schema.object else { return ["\(path): a schema must be an object or a boolean"] }
        if let unknown = s.keys.first(where: { !Self.known.contains($0) }) { return ["schema keyword '\(unknown)' is not checked"] }
        var out: [String] = []
        if case .string(let ref)? = s["$ref"] {
            let (id, pointer) = ref.hasPrefix("#") ? (base, String(ref.dropFirst())) : (String(ref.prefix { $0 != "#" }), String(ref.drop { $0 != "#" }.dropFirst()))
            guard var target = schemas[id] else { return ["\(path): unknown schema \(id)"] }
            for part in pointer.split(separator: "/") {
                guard let next = target.object?[String(part)] else { return ["\(path): no \(ref)"] }
                target = next
            }
            out += errors(value, target, base: id, path: path)
        }
        if case .array(let types)? = s["type"] ?? nil {
            if !types.contains(where: { matches(value, $0) }) { out.append("\(path): not of type \(types)") }
        } else if let type = s["type"], !matches(value, type) { out.append("\(path): not of type \(type)") }
        if case .array(let options)? = s["enum"], !options.contains(value) { out.append("\(path): \(value) is not one of \(options)") }
        if let constant = s["const"], constant != value { out.append("\(path): \(value) is not \(constant)") }
        if case .array(let all)? = s["allOf"] { for sub in all { out += errors(value, sub, base: base, path: path) } }
        if let condition = s["if"], let branch = errors(value, condition, base: base, path: path).isEmpty ? s["then"] : s["else"] {
            out += errors(value, branch, base: base, path: path)
        }
        if case .array(let one)? = s["oneOf"] {
            let passing = one.filter { errors(value, $0, base: base, path: path).isEmpty }.count
            if passing != 1 { out.append("\(path): matches \(passing) of oneOf's \(one.count) schemas, not exactly 1") }
        }
        switch value {
        case .object(let o):
            let properties = s["properties"]?.object ?? [:]
            if case .array(let required)? = s["required"] {
                for case .string(let key) in required where o[key] == nil { out.append("\(path): '\(key)' is required") }
            }
            for (key, item) in o.sorted(by: { $0.key < $1.key }) {
                if let sub = properties[key] { out += errors(item, sub, base: base, path: "\(path).\(key)") }
                else if let extra = s["additionalProperties"] { out += errors(item, extra, base: base, path: "\(path).\(key)") }
                if let names = s["propertyNames"] { out += errors(.string(key), names, base: base, path: "\(path) key \(key)") }
            }
            if case .number(let n)? = s["minProperties"], Double(o.count) < n { out.append("\(path): fewer than \(n) properties") }
            if case .number(let n)? = s["maxProperties"], Double(o.count) > n { out.append("\(path): more than \(n) properties") }
        case .array(let a):
            if let items = s["items"] { for (i, item) in a.enumerated() { out += errors(item, items, base: base, path: "\(path)[\(i)]") } }
            if case .number(let n)? = s["minItems"], Double(a.count) < n { out.append("\(path): fewer than \(n) items") }
            if case .number(let n)? = s["maxItems"], Double(a.count) > n { out.append("\(path): more than \(n) items") }
        case .number(let x):
            if case .number(let n)? = s["minimum"], x < n { out.append("\(path): \(x) < \(n)") }
            if case .number(let n)? = s["maximum"], x > n { out.append("\(path): \(x) > \(n)") }
            if case .number(let n)? = s["exclusiveMinimum"], x <= n { out.append("\(path): \(x) <= \(n)") }
            if case .number(let n)? = s["exclusiveMaximum"], x >= n { out.append("\(path): \(x) >= \(n)") }
        case .string(let text):
            if case .string(let pattern)? = s["pattern"], text.range(of: pattern, options: .regularExpression) == nil { out.append("\(path): '\(text)' does not match \(pattern)") }
            if case .number(let n)? = s["maxLength"], Double(text.count) > n { out.append("\(path): longer than \(n)") }
        default: break
        }
        return out
    }

    private func matches(_ value: JSON, _ type: JSON) -> Bool {
        switch (type, value) {
        case (.string("null"), .null), (.string("boolean"), .bool), (.string("number"), .number), (.string("string"), .string),
             (.string("array"), .array), (.string("object"), .object): return true
        case (.string("integer"), .number(let n)): return n == n.rounded()
        default: return false
        }
    }
}

@Suite struct SchemaTests {
    static let folder = repositoryRoot.appendingPathComponent("Schemas")

    func validator() throws -> (SchemaValidator, suite: JSON, results: JSON) {
        let suite = try JSON.parse(try Data(contentsOf: Self.folder.appendingPathComponent("suite.schema.json")))
        let results = try JSON.parse(try Data(contentsOf: Self.folder.appendingPathComponent("results.schema.json")))
        return (SchemaValidator(schemas: ["urn:fpbench:suite:1": suite, "urn:fpbench:results:1": results]), suite, results)
    }

    /// A run with every optional part present (several queries per source, a catalog, pair difficulty,
    /// matched flags) matches the results schema, and damaged copies do not.
    @Test func resultsFilesMatchTheirSchema() throws {
        let (v, _, schema) = try validator()
        var dataset = try ciDataset()
        dataset.manifest.distractors = dataset.manifest.sources.flatMap(\.alternates)
        let results = try run(dataset, algorithms: ["haitsma-kalker"], tests: ["test1-cropping", "test2-recordings"], queriesPerSource: 2)
        #expect(results.queriesPerSource == 2 && !results.catalogs.isEmpty && results.pairs?.isEmpty == false)
        let encoded = try JSON.parse(try results.encoded())
        let found = v.errors(encoded, schema, base: "urn:fpbench:results:1")
        #expect(found.isEmpty, "\(found.prefix(5))")

        guard case .object(var top) = encoded, case .array(var matrices)? = top["matrices"], case .object(var first)? = matrices.first else {
            Issue.record("results.json is not an object with matrices"); return
        }
        first["scores"] = .array([.array([.string("high")])])
        matrices[0] = .object(first)
        top["matrices"] = .array(matrices)
        top["unexpected"] = .number(1)
        let damaged = v.errors(.object(top), schema, base: "urn:fpbench:results:1")
        #expect(damaged.contains { $0.contains("$.unexpected") } && damaged.contains { $0.contains("scores[0][0]") }, "\(damaged)")
    }

    /// Every schema in Schemas/, by its `$id`.
    func allSchemas() throws -> SchemaValidator {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".schema.json") }
        return SchemaValidator(schemas: Dictionary(uniqueKeysWithValues: try files.map { file in
            let schema = try JSON.parse(try Data(contentsOf: Self.folder.appendingPathComponent(file)))
            guard case .string(let id)? = schema.object?["$id"] else { try unavailable("\(file) has no $id") }
            return (id, schema)
        }))
    }

    /// The benchmark's results.json (whole and a shard's part) and every sweep.json in Reports/ (written
    /// before `kind`), and a new one, match the schema their kind names; `ResultsKind` tells each kind from
    /// its content; a damaged copy fails its schema.
    @Test func benchmarkAndSweepFilesMatchTheirSchemas() throws {
        let v = try allSchemas()
        func check(_ data: Data, _ expected: ResultsKind, _ name: String) throws -> [String] {
            #expect(try ResultsKind.of(data, path: name) == expected, "\(name)")
            let schema = try JSON.parse(try Data(contentsOf: Self.folder.appendingPathComponent(expected.schema)))
            guard case .string(let id)? = schema.object?["$id"] else { return ["no $id"] }
            return v.errors(try JSON.parse(data), schema, base: id)
        }
        let (whole, _) = try smallBenchmark(threads: 2, cache: nil)
        let (part, _) = try smallBenchmark(threads: 2, cache: nil, shard: Shard(index: 1, count: 2))
        for (name, results) in [("whole", whole.sealed()), ("part", part.sealed())] {
            let found = try check(try results.encoded(), .benchmark, name)
            #expect(found.isEmpty, "\(name): \(found.prefix(5))")
        }
        var damaged = whole
        damaged.answers[0].top[0].score = 2
        let found = try check(try damaged.encoded(), .benchmark, "damaged")
        #expect(found.contains { $0.contains("answers[0].top[0].score") }, "\(found)")

        let sweeps = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Reports").path).sorted()
            .map { repositoryRoot.appendingPathComponent("Reports/\($0)/sweep.json") }.filter { FileManager.default.fileExists(atPath: $0.path) }
        var older = 0
        for file in sweeps {
            let data = try Data(contentsOf: file)
            let found = try check(data, .sweep, file.path)
            #expect(found.isEmpty, "\(file.path): \(found.prefix(5))")
            var record = try SweepRecord.decode(data, path: file.path)
            #expect(record.brokenSeal == nil, "\(file.path) keeps its seal")
            guard record.kind == nil else { continue }  // written since the kind: checked as it is, above
            // A sweep.json from before the kind keeps its seal, and validates once it has one.
            older += 1
            record.kind = .sweep
            let new = try check(try record.sealed().encoded(), .sweep, "new " + file.lastPathComponent)
            #expect(new.isEmpty, "\(new.prefix(5))")
        }
        #expect(older >= 5, "the committed sweeps from before the kind")
        #expect(throws: DatasetError.self) { try ResultsKind.of(Data(#"{"kind": "suites"}"#.utf8), path: "x") }
    }

    /// The built-in suite and every suite example in the README and docs/ (one per test kind) match the suite schema and load;
    /// a misspelt field matches neither.
    @Test func suiteFilesMatchTheirSchema() throws {
        let (v, schema, _) = try validator()
        let encoder = JSONEncoder()
        let thesis = try JSON.parse(try encoder.encode(Suite.thesis))
        #expect(v.errors(thesis, schema, base: "urn:fpbench:suite:1").isEmpty)
        // The stage part of the schema is the one the registered units write.
        let (unit, stage) = StageUnits.schema
        let written = try JSON.parse(try JSONSerialization.data(withJSONObject: ["unit": unit, "stage": stage], options: [.sortedKeys]))
        guard case .object(let top) = schema, case .object(let defs)? = top["$defs"] else { Issue.record("Schemas/suite.schema.json has no $defs"); return }
        if defs["unit"] != written.object?["unit"] || defs["stage"] != written.object?["stage"] {
            let expected = Scratch.path("suite-schema-stage", ".json")
            try JSONSerialization.data(withJSONObject: ["unit": unit, "stage": stage], options: [.sortedKeys, .prettyPrinted]).write(to: expected)
            Issue.record("Schemas/suite.schema.json's $defs.unit and $defs.stage differ from what StageUnits.all declares: \(expected.path) holds them")
        }

        let docs = try ["README.md"] + FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }  // the pages, not docs/trials/
        let text = try docs.map { try String(contentsOf: repositoryRoot.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
        let examples = text.components(separatedBy: "```json\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
            .filter { $0.contains("\"tests\"") }
        let kinds = Set(QueryRecipes.all.map { $0.kind })
        #expect(kinds.allSatisfy { kind in examples.contains { $0.contains("\"kind\": \"\(kind)\"") } }, "the docs show every test kind")
        for example in examples {
            let found = v.errors(try JSON.parse(Data(example.utf8)), schema, base: "urn:fpbench:suite:1")
            #expect(found.isEmpty, "\(found) in \(example)")
            let file = Scratch.path("suite", ".json")
            try Data(example.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(throws: Never.self) { try Suite.load(file.path) }
        }
        let misspelt = #"{"name": "s", "tests": [{"id": "a", "title": "t", "kind": "added-noise", "noise": {"kind": "pink", "level": {"snr": {"db": 20}}}}]}"#
        #expect(!v.errors(try JSON.parse(Data(misspelt.utf8)), schema, base: "urn:fpbench:suite:1").isEmpty)
        let file = Scratch.path("suite", ".json")
        try Data(misspelt.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: (any Error).self) { try Suite.load(file.path) }
    }

    /// Every stage unit's example loads and is written back as it reads; each number field's range
    /// holds at both ends, for the decoder and the schema alike (a whole number refuses a half).
    @Test func stageUnitsDeclareWhatTheyRead() throws {
        let (v, schema, _) = try validator()
        func verdicts(_ unit: any StageUnit.Type, _ value: Any) throws -> (code: Bool, schema: Bool) {
            let data = try JSONSerialization.data(withJSONObject: [unit.name: value])
            let suite = try JSON.parse(try JSONSerialization.data(withJSONObject: ["name": "s", "tests": [
                ["id": "a", "title": "t", "kind": "degraded", "stages": [[unit.name: value]]]]]))
            return ((try? decodeStrictly(StageSpec.self, from: data)) != nil, v.errors(suite, schema, base: "urn:fpbench:suite:1").isEmpty)
        }
        for unit in StageUnits.all {
            let example = Data(unit.example.utf8)
            let spec = try decodeStrictly(StageSpec.self, from: example)
            #expect(try decodeStrictly(StageSpec.self, from: try JSONEncoder().encode(spec)) == spec, "\(unit.name)'s example is written back as it reads")
            let object = try #require(try JSONSerialization.jsonObject(with: example) as? [String: Any])
            let found = try verdicts(unit, object[unit.name] as Any)
            #expect(object.count == 1 && found == (true, true), "\(unit.name)'s example")
            guard let value = object[unit.name] as? [String: Any] else { continue }
            let required = value.filter { name, _ in unit.fields.contains { $0.name == name && $0.required } }
            for field in unit.fields {
                guard case .number(let range, let whole) = field.kind else { continue }
                let step = max(1e-6 * (range.upperBound - range.lowerBound), 1e-9)
                var tried = [(range.lowerBound, true), (range.upperBound, true), (range.lowerBound - step, false), (range.upperBound + step, false)]
                if whole { tried.append((range.lowerBound + 0.5, false)) }
                for (level, allowed) in tried {
                    let found = try verdicts(unit, required.merging([field.name: level]) { $1 })
                    #expect(found.code == allowed && found.schema == allowed, "\(unit.name).\(field.name) = \(level): code \(found.code), schema \(found.schema)")
                }
            }
            let undeclared = try verdicts(unit, value.merging(["undeclared": 1]) { $1 })
            #expect(undeclared == (false, false), "\(unit.name) refuses a field it does not declare")
        }
    }

    /// Every external algorithm file shipped in Algorithms/ matches the algorithm schema and loads; a misspelt
    /// field or a time limit of 0 matches neither.
    @Test func algorithmFilesMatchTheirSchema() throws {
        let schema = try JSON.parse(try Data(contentsOf: Self.folder.appendingPathComponent("algorithm.schema.json")))
        let v = SchemaValidator(schemas: ["urn:fpbench:algorithm:1": schema])
        let folder = repositoryRoot.appendingPathComponent("Algorithms")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") && !$0.hasPrefix("nafp-small/") }.sorted()
        #expect(files.count >= 4)
        for name in files {
            let path = folder.appendingPathComponent(name).path, text = try String(contentsOfFile: path, encoding: .utf8)
            let found = v.errors(try JSON.parse(Data(text.utf8)), schema, base: "urn:fpbench:algorithm:1")
            #expect(found.isEmpty, "\(found) in \(name)")
            #expect(throws: Never.self) { try ExternalCommand.load(path) }
            let misspelt = text.replacingOccurrences(of: "\"displayName\"", with: "\"displayname\"")
            #expect(!v.errors(try JSON.parse(Data(misspelt.utf8)), schema, base: "urn:fpbench:algorithm:1").isEmpty)
            let stopped = text.replacingOccurrences(of: "\"install\"", with: "\"timeoutSeconds\": 0, \"install\"")
            #expect(!v.errors(try JSON.parse(Data(stopped.utf8)), schema, base: "urn:fpbench:algorithm:1").isEmpty)
            let copy = Scratch.path("fpbench-schema", ".json")
            try Data(stopped.utf8).write(to: copy)
            defer { try? FileManager.default.removeItem(at: copy) }
            #expect { try ExternalCommand.load(copy.path) } throws: { "\($0)".contains("timeoutSeconds: above 0 and at most 86,400") }
        }
    }

    /// Every system file shipped in Systems/ matches the system schema and loads; a misspelt field matches neither.
    @Test func systemFilesMatchTheirSchema() throws {
        let schema = try JSON.parse(try Data(contentsOf: Self.folder.appendingPathComponent("system.schema.json")))
        let v = SchemaValidator(schemas: ["urn:fpbench:system:1": schema])
        let folder = repositoryRoot.appendingPathComponent("Systems")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().flatMap { name -> [String] in
            let adapter = folder.appendingPathComponent(name)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: adapter.path)) ?? []
            return names.filter { $0.hasSuffix(".json") }.sorted().map { adapter.appendingPathComponent($0).path }
        }
        #expect(files.count >= 7, "Systems/ ships the example, the peers' adapters and Panako's diagnostic variant")
        for file in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let found = v.errors(try JSON.parse(data), schema, base: "urn:fpbench:system:1")
            #expect(found.isEmpty, "\(found) in \(file)")
            #expect(throws: Never.self) { try OutsideSystem(file: file) }
            let misspelt = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"displayName\"", with: "\"displayname\"")
            #expect(!v.errors(try JSON.parse(Data(misspelt.utf8)), schema, base: "urn:fpbench:system:1").isEmpty)
        }
    }
}
