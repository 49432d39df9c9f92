@testable import Reporting
import Testing

/// reproduce.md names paths as a reader's checkout has them: the current folder taken out of every word,
/// a path outside it kept as given.
@Suite struct ReproductionCardTests {
    @Test func theCommandsPathsAreRelativeToTheCurrentFolder() {
        #expect(ReproductionCard.relative("/home/me/fpbench/.build/release/fpbench", in: "/home/me/fpbench") == ".build/release/fpbench")
        #expect(ReproductionCard.relative("--out=/home/me/fpbench/Reports/x", in: "/home/me/fpbench/") == "--out=Reports/x")
        #expect(ReproductionCard.relative("nafp-small@weights=/home/me/fpbench/runs/w.fpnn", in: "/home/me/fpbench") == "nafp-small@weights=runs/w.fpnn")
        #expect(ReproductionCard.relative("/tmp/elsewhere", in: "/home/me/fpbench") == "/tmp/elsewhere")
        #expect(ReproductionCard.relative("/home/me/fpbench-other/x", in: "/home/me/fpbench") == "/home/me/fpbench-other/x")
    }
}
