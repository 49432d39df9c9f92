import Foundation
import Synchronization

/// Every figure of a report also as PDF, for a paper: `rsvg-convert` (Debian's librsvg2-bin, which
/// scripts/setup.sh installs) draws each SVG beside it as NAME.pdf, its font embedded and subset so its
/// text stays searchable, at the SVG's own size (96 px to the inch) but at most a double column's width
/// (7 in), so 12 px text prints at 8.4-9 pt. SOURCE_DATE_EPOCH=0 keeps the same SVG's PDF the same bytes.
/// Without the converter the SVGs stand alone and one note says what to install.
public enum PDFFigures {
    /// The widest page, in points: 7 in.
    public static let widestPoints = 504.0
    static let converter = "rsvg-convert"

    public struct Failed: Error, CustomStringConvertible {
        public var figure: String
        public var message: String
        public var description: String { "could not draw \(figure) as PDF with \(converter): \(message)" }
    }

    /// The SVGs a folder's writer put, in order.
    final class Pending: Sendable {
        private let list = Mutex<[URL]>([])
        func add(_ file: URL) { list.withLock { if !$0.contains(file) { $0.append(file) } } }
        var files: [URL] { list.withLock { $0 } }
    }

    /// The page width rsvg-convert is asked for: the SVG's own (points), or the widest page.
    static func width(ofSVG svg: Data) -> Double? {
        let head = String(decoding: svg.prefix(400), as: UTF8.self)
        guard let range = head.range(of: #"width="([0-9.]+)""#, options: .regularExpression) else { return nil }
        return Double(head[range].dropFirst(7).dropLast()).map { $0 * 0.75 }
    }

    static let executable: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .map { "\($0)/\(converter)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    private static let noted = Mutex(false)

    static func write(_ figures: [URL]) throws {
        guard !figures.isEmpty else { return }
        guard let executable else {
            if !noted.withLock({ let was = $0; $0 = true; return was }) {
                FileHandle.standardError.write(Data("note: figures written as SVG only: \(converter) was not found (Debian: apt-get install librsvg2-bin, or scripts/setup.sh)\n".utf8))
            }
            return
        }
        let failures = Mutex<[Failed]>([])
        DispatchQueue.concurrentPerform(iterations: figures.count) { i in
            do { try draw(figures[i], with: executable) } catch {
                failures.withLock { $0.append(error as? Failed ?? Failed(figure: figures[i].lastPathComponent, message: "\(error)")) }
            }
        }
        if let first = failures.withLock({ $0.first }) { throw first }
    }

    /// NAME.svg to NAME.pdf, written under a temporary name (one `OutputFolder` clears when a run left it) and renamed.
    static func draw(_ svg: URL, with executable: String) throws {
        let pdf = svg.deletingPathExtension().appendingPathExtension("pdf")
        let temporary = pdf.deletingLastPathComponent().appendingPathComponent(".dat.nosync.\(pdf.lastPathComponent)")
        let points = (try? Data(contentsOf: svg)).flatMap(width(ofSVG:)) ?? widestPoints
        let process = Process(), errors = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--format", "pdf", "--keep-aspect-ratio", "--width", String(format: "%gpt", min(points, widestPoints)),
                             "--output", temporary.path, svg.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["SOURCE_DATE_EPOCH": "0"]) { $1 }
        process.standardError = errors
        do { try process.run() } catch { throw Failed(figure: svg.lastPathComponent, message: "\(error)") }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw Failed(figure: svg.lastPathComponent, message: message.isEmpty ? "exit \(process.terminationStatus)" : message)
        }
        guard rename(temporary.path, pdf.path) == 0 else { throw Failed(figure: svg.lastPathComponent, message: String(cString: strerror(errno))) }
    }
}
