import AudioIO
import DSP
@testable import Evaluation
import Fingerprinting
import Foundation
@testable import SuiteEvaluation
import Testing

@Suite struct VariantTests {
    /// A variant has its own identifier, its changed value marked in its profile, its own cache key and
    /// its own fingerprints; a named variant is the same as its values spelt out.
    @Test func aVariantIsAnAlgorithmOfItsOwn() throws {
        let base = try AlgorithmRegistry.algorithm("constellation")
        let variant = try AlgorithmRegistry.algorithm("constellation@sampleRate=22050")
        #expect(variant.identifier == "constellation@sampleRate=22050" && variant.sampleRate == 22_050)
        let rate = try #require(variant.profile.parameters.first { $0.name == "sampleRate" })
        #expect(rate.source.hasPrefix("changed from the default") && variant.profile.variant == "sampleRate=22050.0")
        #expect(base.profile.variant == "default" && base.profile.key != variant.profile.key)
        let named = try AlgorithmRegistry.algorithm("constellation@birdsong")
        #expect(named.profile == variant.profile && named.identifier == "constellation@birdsong")

        let audio = Audio(samples: SeededNoise(seed: 4).gaussian(count: 3 * 44_100, sigma: 0.2), sampleRate: 44_100)
        let a = try base.fingerprint(try audio.resampled(to: base.sampleRate)), b = try variant.fingerprint(try audio.resampled(to: variant.sampleRate))
        #expect(a.algorithm == "constellation" && b.algorithm == variant.identifier && a.subFingerprintCount != b.subFingerprintCount)
        #expect(variant.compare(query: b, reference: b).score > 0.9)

        // The cache keeps them apart.
        let folder = temporaryFolder()
        let cache = FingerprintCache(folder: folder)
        _ = try cache.fingerprint(base, role: .reference, contentKey: "k") { audio }
        _ = try cache.fingerprint(variant, role: .reference, contentKey: "k") { audio }
        #expect(try cache.fingerprint(variant, role: .reference, contentKey: "k") { throw CocoaError(.fileReadUnknown) }.subFingerprintCount == b.subFingerprintCount)
    }

    @Test func badVariantsAreRefusedWithTheReason() {
        #expect { try AlgorithmRegistry.algorithm("constellation@fanOut=0") } throws: { "\($0)".contains("fanOut=0: must be within 1...1000000") }
        #expect { try AlgorithmRegistry.algorithm("constellation@nope=1") } throws: { "\($0)".contains("no parameter 'nope'; parameters: commonHashLimit, fanOut") }
        #expect { try AlgorithmRegistry.algorithm("constellation@fanOut=many") } throws: { "\($0)".contains("a whole number is needed") }
        #expect { try AlgorithmRegistry.algorithm("constellation@x") } throws: { "\($0)".contains("or a named variant (constellation@birdsong, constellation@large)") }
        #expect { try AlgorithmRegistry.algorithm("constellation@hashBits=24") } throws: { "\($0)".contains("hashBits must be 20") }
        #expect { try AlgorithmRegistry.algorithm("constellation@fftSize=1024") } throws: { "\($0)".contains("the 20-bit hash keeps 8 bits of frequency") }
        #expect { try AlgorithmRegistry.algorithm("constellation@commonHashLimit=10") } throws: { "\($0)".contains("at least 20") }
        #expect { try AlgorithmRegistry.algorithm("waveprint@bandCount=3") } throws: { "\($0)".contains("powers of two") }
        #expect { try AlgorithmRegistry.algorithm("nothing@fanOut=1") } throws: { "\($0)".contains("unknown algorithm 'nothing@fanOut=1'") }
    }

    /// Every settable parameter of every algorithm, at small, odd and large values, is either refused
    /// with a reason or fingerprints and compares without trapping; the defaults pass their own check.
    @Test(arguments: AlgorithmRegistry.all) func noSettingTraps(base: AnyAlgorithm) throws {
        // 3 s: the thesis's AFA and Waveprint need 1.85 s for one image at a hop they admit (at least frame / 64).
        let audio = Audio(samples: SeededNoise(seed: 5).gaussian(count: 3 * 44_100, sigma: 0.2), sampleRate: 44_100)
        #expect(!base.settable.isEmpty)
        var compared = 0
        for name in base.settable {
            for value in ["1", "3", "1000"] {
                let variant: AnyAlgorithm
                do { variant = try base.variant([(name, value)], identifier: "\(base.identifier)@\(name)=\(value)") } catch {
                    #expect("\(error)".contains(name), "a refusal names the parameter: \(error)")
                    continue
                }
                let print: AnyFingerprint
                do { print = try variant.fingerprint(try audio.resampled(to: variant.sampleRate)) } catch {
                    #expect(error is FingerprintError, "\(variant.identifier) failed with a reason: \(error)")
                    continue
                }
                let result = variant.compare(query: print, reference: print)
                #expect((0...1).contains(result.score) && result.offset.isFinite && result.rawFigure.isFinite, "\(variant.identifier): \(result)")
                compared += 1
            }
        }
        #expect(compared > 0, "some setting of \(base.identifier) ran")
    }
}
