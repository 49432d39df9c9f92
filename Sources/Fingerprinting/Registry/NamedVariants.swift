extension AlgorithmRegistry {
    /// Named variants. Adding one means adding one entry here.
    public static let namedVariants: [NamedVariant] = [
        NamedVariant(base: "constellation", name: "birdsong", values: [("sampleRate", "22050")],
                     why: "our choice, for the thesis's question: bird song sits between 1 and 10 kHz, above the default's 5.5 kHz "
                        + "Nyquist limit (68 % of the Bengalese finch's energy lies above every default band); 22,050 Hz reaches 11 kHz "
                        + "with the same 512-point FFT and 256-sample hop, so frames last half as long"),
        NamedVariant(base: "panako", name: "dense", values: [("peakBinRadius", "25"), ("minimumAlignedHits", "24"), ("commonHashLimit", "60")],
                     why: "our choice, measured on the catalog: our FFT front end finds about 30 triplets a second with Panako's "
                        + "±51-bin neighbourhood, too few to survive noise or a tempo change; ±25 bins gives about 13 times as many "
                        + "(speed, tempo, pitch: 99-100 % of 10 s queries instead of 71-89 %), and with 24 aligned triplets "
                        + "2 of 100 negative 10 s queries still match (the benchmark calibrates its own threshold); so many triplets "
                        + "need few common ones: skipping a hash held more than 60 times keeps a query's search within 3 times its "
                        + "13 h time up to 300 h with the speed, tempo and pitch conditions' accuracy (a limit of 20 kept it flat but "
                        + "lost them 3-11 points at 300 h; Reports/scale-synthetic/scale-panako-dense-limits.md)"),
        NamedVariant(base: "panako", name: "large",
                     values: [("peakBinRadius", "25"), ("minimumAlignedHits", "24"), ("commonHashLimit", "200"), ("hitBudget", "100000")],
                     why: "our choice, for catalogs of a thousand hours and more: panako@dense's event points and threshold, with Panako's "
                        + "own lookup limit of 200 and a budget of 100,000 hits a query (its rarest hashes first): as a catalog grows, "
                        + "every hash is held more often and panako@dense's limit of 60 skips most of them at 1,000 h (clean queries 83 of "
                        + "100, speed, tempo and pitch 13-34), while the limit of 200 alone keeps them at 5.8 times the 13 h search; "
                        + "the budget bounds the search and keeps the hashes that tell tracks apart: at 1,000 h 1.3 times its 13 h search, "
                        + "97-100 of 100 queries under those changes (Reports/scale-synthetic/scale-panako-large-1000h.md)"),
        NamedVariant(base: "constellation", name: "large",
                     values: [("hashBits", "32"), ("fftSize", "1024"), ("peakBinRadius", "20"), ("maximumFrequencyDelta", "62"), ("commonHashLimit", "2000")],
                     why: "our choice, for catalogs of thousands of hours: the 20-bit hash has about 1M values, so at 10,000 h each sits "
                        + "at thousands of positions and every one is skipped as common (0 of 100 queries found); Wang's 32-bit layout "
                        + "with twice the frequency resolution (1,024-point frames; the peak neighbourhood and target zone kept in Hz) "
                        + "spreads the same pairs over many more hashes, and a lookup limit of 2,000 keeps those a large catalog holds often"),
    ]

    /// An identifier with its variant part: "constellation@fanOut=5,sampleRate=22050" or "constellation@birdsong".
    public static func parseVariant(_ identifier: String) throws -> (base: String, values: [(name: String, value: String)])? {
        guard let at = identifier.firstIndex(of: "@") else { return nil }
        let base = String(identifier[..<at])
        // "constellation@large@fanOut=5", as `--set` names a changed named variant: the named values, then the changes.
        var values: [(name: String, value: String)] = []
        for (i, part) in identifier[identifier.index(after: at)...].split(separator: "@", omittingEmptySubsequences: false).enumerated() {
            if i == 0, let named = namedVariants.first(where: { $0.base == base && $0.name == part }) {
                values = named.values
                continue
            }
            let changes = try part.split(separator: ",", omittingEmptySubsequences: false).map { pair -> (name: String, value: String) in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    let named = namedVariants.filter { $0.base == base }.map(\.identifier)
                    throw VariantError(description: "'\(identifier)': after '@' comes NAME=VALUE[,NAME=VALUE...]"
                                       + (named.isEmpty ? "" : " or a named variant (\(named.joined(separator: ", ")))"))
                }
                return (parts[0], parts[1])
            }
            if let twice = Dictionary(grouping: changes, by: \.name).first(where: { $0.value.count > 1 })?.key {
                throw VariantError(description: "'\(identifier)': \(twice) is set twice; set each parameter once")
            }
            values = values.filter { value in !changes.contains { $0.name == value.name } } + changes
        }
        return (base, values)
    }
}
