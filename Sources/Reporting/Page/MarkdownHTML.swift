import Foundation

/// The Markdown our summaries use (headings, tables, paragraphs, lists, **bold**, `code`, links and
/// ![figures](file.svg)) as HTML. A figure whose SVG file is beside the summary is inlined, so the
/// page needs no other file; a cell of a table written from one of `linking` opens the page's query
/// list filtered to the queries behind it (its `Table.Cell.filter`).
struct MarkdownHTML {
    var folder: URL
    /// The tables the Markdown was written from whose cells link, by their Markdown.
    var linking: [String: Table] = [:]
    /// Links to files that the page shows itself (a matrix's .md or .svg) → an anchor on the page.
    var anchor: (String) -> String? = { _ in nil }

    init(folder: URL, linking: [Table] = [], anchor: @escaping (String) -> String? = { _ in nil }) {
        self.folder = folder
        self.linking = Dictionary(linking.map { ($0.markdown, $0) }) { first, _ in first }
        self.anchor = anchor
    }

    func render(_ markdown: String) -> String {
        var html = "", paragraph: [String] = [], list: [String] = [], table: [String] = []
        func flush() {
            if !paragraph.isEmpty { html += "<p>" + paragraph.map(inline).joined(separator: " ") + "</p>\n"; paragraph = [] }
            if !list.isEmpty { html += "<ul>\n" + list.map { "<li>" + inline($0) + "</li>\n" }.joined() + "</ul>\n"; list = [] }
            if !table.isEmpty { html += renderTable(table); table = [] }
        }
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("|") {
                if !paragraph.isEmpty || !list.isEmpty { let kept = table; table = []; flush(); table = kept }
                table.append(trimmed)
                continue
            }
            if !table.isEmpty { let t = table; table = []; html += renderTable(t) }
            if trimmed.isEmpty { flush(); continue }
            if let level = trimmed.firstIndex(where: { $0 != "#" }).map({ trimmed.distance(from: trimmed.startIndex, to: $0) }),
               level > 0, level <= 4, trimmed.dropFirst(level).hasPrefix(" ") {
                flush()
                let heading = String(trimmed.dropFirst(level + 1))
                html += "<h\(level + 1) id=\"\(Self.slug(heading))\">\(inline(heading))</h\(level + 1)>\n"
            } else if trimmed.hasPrefix("- ") {
                if !paragraph.isEmpty { let kept = list; list = []; flush(); list = kept }
                list.append(String(trimmed.dropFirst(2)))
            } else if let figure = figure(trimmed) {
                flush()
                html += figure
            } else {
                paragraph.append(trimmed)
            }
        }
        flush()
        return html
    }

    /// A line holding only ![alt](file.svg): the SVG inlined (or a note when the file is missing).
    private func figure(_ line: String) -> String? {
        guard line.hasPrefix("!["), line.hasSuffix(")"), let open = line.range(of: "](") else { return nil }
        let file = String(line[open.upperBound..<line.index(before: line.endIndex)])
        guard file.hasSuffix(".svg") else { return nil }
        guard let svg = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) else {
            return "<p class=\"missing\">figure \(HTMLPage.escape(file)) is missing</p>\n"
        }
        return "<figure data-file=\"\(HTMLPage.escape(file))\">\(HTMLPage.inlineSVG(svg))</figure>\n"
    }

    /// A table's lines (`| a | b |`), its cells linked when it was written from one of `linking`.
    private func renderTable(_ lines: [String]) -> String {
        let rows = lines.map(Self.cells), model = linking[lines.map { $0 + "\n" }.joined()]
        guard let header = rows.first else { return "" }
        let body = rows.dropFirst().filter { !$0.allSatisfy { $0.allSatisfy { "-:".contains($0) } } }
        var html = "<table class=\"sortable\">\n<thead><tr>" + header.map { "<th>\(inline($0))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
        for (r, row) in body.enumerated() {
            html += "<tr>"
            for (c, text) in row.enumerated() {
                let content = inline(text)
                if let filter = model?.rows[r][c].filter {
                    html += "<td><a class=\"to-queries\" href=\"\(HTMLPage.escape(QueryList.href(filter)))\">\(content)</a></td>"
                } else { html += "<td>\(content)</td>" }
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// `| a | b |` → ["a", "b"].
    static func cells(_ line: String) -> [String] {
        var inner = Substring(line)
        if inner.hasPrefix("|") { inner = inner.dropFirst() }
        if inner.hasSuffix("|") { inner = inner.dropLast() }
        return inner.components(separatedBy: "|").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func slug(_ text: String) -> String {
        String(text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }

    /// **bold**, `code` and [text](href), on escaped text.
    func inline(_ text: String) -> String {
        var out = "", rest = Substring(HTMLPage.escape(text))
        while let i = rest.firstIndex(where: { $0 == "*" || $0 == "`" || $0 == "[" }) {
            out += rest[..<i]
            rest = rest[i...]
            if rest.hasPrefix("**"), let end = rest.dropFirst(2).range(of: "**") {
                out += "<strong>" + inline(unescaped(rest[rest.index(rest.startIndex, offsetBy: 2)..<end.lowerBound])) + "</strong>"
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("`"), let end = rest.dropFirst().firstIndex(of: "`") {
                out += "<code>" + rest[rest.index(after: rest.startIndex)..<end] + "</code>"
                rest = rest[rest.index(after: end)...]
            } else if rest.hasPrefix("["), let close = rest.dropFirst().firstIndex(where: { $0 == "]" || $0 == "[" }), rest[close] == "]",
                      rest[rest.index(after: close)...].hasPrefix("("), let end = rest[close...].firstIndex(of: ")") {
                let label = inline(unescaped(rest[rest.index(after: rest.startIndex)..<close]))
                let href = String(rest[rest.index(close, offsetBy: 2)..<end])
                out += "<a href=\"\(anchor(unescaped(Substring(href))).map(HTMLPage.escape) ?? href)\">\(label)</a>"
                rest = rest[rest.index(after: end)...]
            } else {
                out += rest.prefix(1)
                rest = rest.dropFirst()
            }
        }
        return out + rest
    }

    /// Inline parsing works on escaped text; nested parts are escaped again by `inline`.
    private func unescaped(_ text: Substring) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
