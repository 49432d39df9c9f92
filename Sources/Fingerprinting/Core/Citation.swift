/// A work the profiles cite: its short name, as tables and sources print it ("Wang 2003"), and its
/// BibTeX entry under `key`, from which a run's references.bib is written (every `\cite` a LaTeX
/// table makes resolves there). Kept once here; README.md's references are held against this list.
public struct Citation: Sendable, Hashable, CustomStringConvertible {
    public let key: String
    public let short: String
    /// The entry's fields after its key, BibTeX as written.
    let fields: String
    let kind: String

    public var description: String { short }
    public var bibtex: String { "@\(kind){\(key),\n\(fields)\n}\n" }

    public static let thesis = Citation("brandner2013", "Brandner 2013", kind: "misc", """
      author = {Brandner},
      title = {Bird Recognition using Audio Fingerprinting},
      note = {Thesis},
      year = {2013}
    """)
    public static let balujaCovell = Citation("baluja2008waveprint", "Baluja & Covell 2008", kind: "article", """
      author = {Baluja, Shumeet and Covell, Michele},
      title = {Waveprint: Efficient wavelet-based audio fingerprinting},
      journal = {Pattern Recognition},
      volume = {41},
      number = {11},
      pages = {3467--3480},
      year = {2008}
    """)
    public static let soundFingerprinting = Citation("soundfingerprinting", "SoundFingerprinting defaults", kind: "misc", """
      author = {{Emysn}},
      title = {SoundFingerprinting: audio fingerprinting and recognition in .NET},
      howpublished = {\\url{https://github.com/AddictedCS/soundfingerprinting}},
      note = {Published implementation defaults}
    """)
    public static let wang = Citation("wang2003", "Wang 2003", kind: "inproceedings", """
      author = {Wang, Avery Li-Chun},
      title = {An Industrial-Strength Audio Search Algorithm},
      booktitle = {Proceedings of the 4th International Conference on Music Information Retrieval (ISMIR)},
      year = {2003}
    """)
    public static let audfprint = Citation("ellis2014audfprint", "audfprint (Ellis 2014)", kind: "misc", """
      author = {Ellis, Daniel P. W.},
      title = {audfprint: Landmark-based audio fingerprinting},
      howpublished = {\\url{https://github.com/dpwe/audfprint}},
      year = {2014}
    """)
    public static let haitsmaKalker = Citation("haitsma2002", "Haitsma & Kalker 2002", kind: "inproceedings", """
      author = {Haitsma, Jaap and Kalker, Ton},
      title = {A Highly Robust Audio Fingerprinting System},
      booktitle = {Proceedings of the 3rd International Conference on Music Information Retrieval (ISMIR)},
      year = {2002}
    """)
    public static let panako = Citation("six2022panako", "Six 2022 (Panako 2.1)", kind: "article", """
      author = {Six, Joren},
      title = {Panako: a scalable audio search system},
      journal = {Journal of Open Source Software},
      volume = {7},
      number = {78},
      pages = {4554},
      year = {2022}
    """)
    public static let panakoConfiguration = Citation("six2022panako", "Panako 2.1 defaults", kind: "article", panako.fields)
    public static let sonnleitnerWidmer = Citation("sonnleitner2016quad", "Sonnleitner & Widmer 2016", kind: "article", """
      author = {Sonnleitner, Reinhard and Widmer, Gerhard},
      title = {Robust Quad-Based Audio Fingerprinting},
      journal = {IEEE/ACM Transactions on Audio, Speech, and Language Processing},
      volume = {24},
      number = {3},
      pages = {409--421},
      year = {2016}
    """)
    public static let nafp = Citation("chang2021nafp", "NAFP (Chang et al., ICASSP 2021)", kind: "inproceedings", """
      author = {Chang, Sungkyun and Lee, Donmoon and Park, Jeongsoo and Lim, Hyungui and Lee, Kyogu and Ko, Karam and Han, Yoonchang},
      title = {Neural Audio Fingerprint for High-Specific Audio Retrieval Based on Contrastive Learning},
      booktitle = {IEEE International Conference on Acoustics, Speech and Signal Processing (ICASSP)},
      pages = {3025--3029},
      year = {2021}
    """)
    public static let olaf = Citation("six2023olaf", "Six 2023 (Olaf)", kind: "article", """
      author = {Six, Joren},
      title = {Olaf: a lightweight, portable audio search system},
      journal = {Journal of Open Source Software},
      volume = {8},
      number = {87},
      pages = {5459},
      doi = {10.21105/joss.05459},
      year = {2023}
    """)
    public static let dejavu = Citation("drevo2014dejavu", "Drevo 2014 (Dejavu)", kind: "misc", """
      author = {Drevo, Will},
      title = {Dejavu: Audio fingerprinting and recognition in Python},
      howpublished = {\\url{https://github.com/worldveil/dejavu}},
      year = {2014}
    """)
    public static let chromaprint = Citation("lalinsky2010chromaprint", "Chromaprint (AcoustID)", kind: "misc", """
      author = {Lalinsk{\\'y}, Luk{\\'a}{\\v{s}}},
      title = {Chromaprint: the AcoustID audio fingerprinting library},
      howpublished = {\\url{https://acoustid.org/chromaprint}},
      year = {2010}
    """)

    /// Every work cited, in the order a bibliography lists them.
    public static let all: [Citation] = [thesis, haitsmaKalker, wang, balujaCovell, audfprint, soundFingerprinting, sonnleitnerWidmer,
                                         panako, panakoConfiguration, nafp, olaf, dejavu, chromaprint]

    /// The works a profile's sources name, one per bibliography entry, in `all`'s order.
    public static func cited(in profile: Profile) -> [Citation] {
        let sources = profile.parameters.map(\.source)
        var keys = Set<String>()
        return all.filter { citation in sources.contains { $0.contains(citation.short) } && keys.insert(citation.key).inserted }
    }

    /// A BibTeX file of these works, each entry once.
    public static func bibliography(_ works: [Citation]) -> String {
        var keys = Set<String>()
        return works.filter { keys.insert($0.key).inserted }.map(\.bibtex).joined(separator: "\n")
    }

    init(_ key: String, _ short: String, kind: String, _ fields: String) {
        (self.key, self.short, self.kind, self.fields) = (key, short, kind, fields)
    }
}
