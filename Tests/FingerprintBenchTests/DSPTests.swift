import CGSL
import DSP
import Foundation
import SuiteEvaluation
import Testing

@Suite struct FFTTests {
    @Test func matchesANaiveDFTOnSeededRandomInput() {
        let n = 96  // not a power of two: FFTW handles any size
        let x = SeededNoise(seed: 7).uniform(count: n, amplitude: 1)
        let fast = RealFFT(size: n).spectrum(x)
        var worst = 0.0, largest = 0.0
        for k in 0...(n / 2) {
            var re = 0.0, im = 0.0
            for t in 0..<n {
                let angle = -2 * Double.pi * Double(k * t) / Double(n)
                re += Double(x[t]) * cos(angle); im += Double(x[t]) * sin(angle)
            }
            worst = max(worst, hypot(Double(fast[k].re) - re, Double(fast[k].im) - im))
            largest = max(largest, hypot(re, im))
        }
        #expect(worst / largest < 1e-4)
    }

    @Test func aSineLandsInItsBin() {
        let n = 1024, bin = 37
        let x = (0..<n).map { Float(sin(2 * Double.pi * Double(bin * $0) / Double(n))) }
        var power: [Float] = []
        x.withUnsafeBufferPointer { RealFFT(size: n).powerSpectrum($0, into: &power) }
        let loudest = power.indices.max { power[$0] < power[$1] }!
        #expect(loudest == bin)
        #expect(abs(power[bin].squareRoot() - Float(n) / 2) < 0.01 * Float(n))  // amplitude 1 -> N/2
        let elsewhere = power.enumerated().filter { $0.offset != bin }.map(\.element).max()!
        #expect(elsewhere < 1e-6 * power[bin])
    }

    @Test func parsevalHolds() {
        let n = 512
        let x = SeededNoise(seed: 3).gaussian(count: n, sigma: 1)
        let timeEnergy = x.reduce(0.0) { $0 + Double($1 * $1) }
        let spectrum = RealFFT(size: n).spectrum(x).map { Double($0.re * $0.re + $0.im * $0.im) }
        // One-sided spectrum: DC and Nyquist once, every other bin twice.
        let frequencyEnergy = (spectrum[0] + spectrum[n / 2] + 2 * spectrum[1..<(n / 2)].reduce(0, +)) / Double(n)
        #expect(abs(frequencyEnergy - timeEnergy) / timeEnergy < 1e-4)
    }

    @Test func spectrogramFrameCountFollowsHopArithmetic() {
        let stft = STFT(frameSize: 2048, hop: 64, window: .rectangular)
        #expect(stft.frameCount(sampleCount: 9 * 5512) == 744)  // (49,608 − 2,048) / 64 + 1
        #expect(stft.frameCount(sampleCount: 2047) == 0)
        let m = FrameFrontEnd.power(stft).rows([Float](repeating: 0.1, count: 4096))
        #expect(m.rows == 33 && m.columns == 1025)
    }

    /// A frame stream fed block by block hands out the whole signal's rows, whatever the blocks' sizes: shorter than
    /// a frame, a frame and a hop, several frames (held samples completed from a block, frames cut from it straight).
    @Test(arguments: [1, 63, 64, 255, 256, 257, 320, 1000, 4097])
    func aFrameStreamFedInBlocksGivesTheWholeSignalsRows(block: Int) {
        let frontEnd = FrameFrontEnd.power(STFT(frameSize: 256, hop: 64, window: .hann))
        let signal = SeededNoise(seed: 11).uniform(count: 5000, amplitude: 1)
        var rows: [Float] = []
        let stream = frontEnd.stream()
        signal.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: block) {
                stream.consume(UnsafeBufferPointer(rebasing: all[start..<min(start + block, all.count)])) { rows += $0 }
            }
        }
        let whole = frontEnd.rows(signal).values
        #expect(whole.count == 75 * 129)  // (5,000 - 256) / 64 + 1 frames
        let differs = rows.indices.first { $0 >= whole.count || rows[$0] != whole[$0] }
        #expect(rows.count == whole.count && differs == nil, "\(rows.count) values, first difference at \(String(describing: differs))")
    }
}

@Suite struct BandTests {
    @Test func logarithmicEdgesHaveAConstantRatio() {
        let edges = BandEdges.logarithmic(from: 318, to: 2756, count: 32)
        #expect(edges.count == 33)
        #expect(abs(edges.first! - 318) < 1e-9 && abs(edges.last! - 2756) < 1e-9)
        let ratios = (1..<edges.count).map { edges[$0] / edges[$0 - 1] }
        #expect(ratios.allSatisfy { abs($0 - ratios[0]) < 1e-9 })
        #expect(BandEdges.linear(from: 0, to: 100, count: 4) == [0, 25, 50, 75, 100])
    }

    @Test func bandEnergyIsTheMeanPowerOfItsBins() {
        // 16-point FFT at 16 Hz: bin k is k Hz. Bands [2, 4) and [4, 8) hold bins 2-3 and 4-7.
        let mapper = BandMapper(edges: [2, 4, 8], fftSize: 16, sampleRate: 16)
        #expect(mapper.binRanges == [2..<4, 4..<8])
        let power: [Float] = (0...8).map(Float.init)
        #expect(mapper.energies(of: power) == [2.5, 5.5])
    }
}

@Suite struct HaarTests {
    @Test func thesisTable1AveragingAndDifferencing() {
        // The thesis's Table 1: 538 940 1940 1794 -> 739 1867 -201 73 -> 1303 -564 -201 73.
        let full = Haar.transform([538, 940, 1940, 1794], form: .averaging)
        #expect(full == [1303, -564, -201, 73])
        let firstLevel = Haar.transform([538, 940], form: .averaging) + Haar.transform([1940, 1794], form: .averaging)
        #expect(firstLevel == [739, -201, 1867, 73])
    }

    @Test func normalised2DEqualsGSLStandardHaarAndPreservesEnergy() {
        let rows = 128, columns = 32
        let noise = SeededNoise(seed: 42)
        let image = Matrix(rows: rows, columns: columns, values: noise.gaussian(count: rows * columns, sigma: 1))
        let ours = Haar.transform2D(image, form: .normalised)

        // GSL's orthonormal Haar in the standard form: every row fully, then every column fully.
        var reference = image.values.map(Double.init)
        let wavelet = gsl_wavelet_alloc(fpb_wavelet_haar(), 2)!
        let workspace = gsl_wavelet_workspace_alloc(rows)!
        defer { gsl_wavelet_free(wavelet); gsl_wavelet_workspace_free(workspace) }
        reference.withUnsafeMutableBufferPointer { data in
            for r in 0..<rows { #expect(gsl_wavelet_transform_forward(wavelet, data.baseAddress! + r * columns, 1, columns, workspace) == 0) }
            for c in 0..<columns { #expect(gsl_wavelet_transform_forward(wavelet, data.baseAddress! + c, columns, rows, workspace) == 0) }
        }
        let worst = zip(ours.values, reference).map { abs(Double($0) - $1) }.max()!
        #expect(worst < 1e-4)

        let before = image.values.reduce(0.0) { $0 + Double($1 * $1) }
        let after = ours.values.reduce(0.0) { $0 + Double($1 * $1) }
        #expect(abs(after - before) / before < 1e-5)
    }
}

@Suite struct NoiseTests {
    @Test func sameSeedSameNoiseOtherSeedOtherNoise() {
        #expect(SeededNoise(seed: 1).uniform(count: 1000, amplitude: 1) == SeededNoise(seed: 1).uniform(count: 1000, amplitude: 1))
        #expect(SeededNoise(seed: 1).uniform(count: 1000, amplitude: 1) != SeededNoise(seed: 2).uniform(count: 1000, amplitude: 1))
        #expect(SeededNoise(seed: 5).gaussian(count: 1000, sigma: 1) == SeededNoise(seed: 5).gaussian(count: 1000, sigma: 1))
        #expect(SeededNoise(seed: 5).pink(count: 1000, sigma: 1) != SeededNoise(seed: 6).pink(count: 1000, sigma: 1))
    }

    @Test func uniformNoiseStaysWithinItsAmplitudeAndFillsIt() {
        let x = SeededNoise(seed: 9).uniform(count: 100_000, amplitude: 0.0316)
        #expect(x.allSatisfy { abs($0) <= 0.0316 })
        #expect(x.map { abs($0) }.max()! > 0.0315)
    }

    @Test func pinkNoiseHasMorePowerLowThanHigh() {
        let x = SeededNoise(seed: 11).pink(count: 65_536, sigma: 1)
        let power = FrameFrontEnd.power(STFT(frameSize: 4096, hop: 4096, window: .hann)).rows(x)
        func band(_ r: Range<Int>) -> Double { (0..<power.rows).reduce(0.0) { s, row in s + r.reduce(0.0) { $0 + Double(power[row, $1]) } } / Double(r.count) }
        // 1/f: an octave ten octaves lower carries about ten times the power per bin... at least several times.
        #expect(band(8..<16) > 20 * band(1024..<2048))
    }
}
