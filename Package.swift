// swift-tools-version: 6.0
// FingerprintBench: compare audio-fingerprint algorithms on real audio, reproducibly.
// Layers, one way: C libraries -> AudioIO -> DSP -> Fingerprinting and Degradation -> OutsidePrograms (outside systems, external commands, fpcalc)
// -> Evaluation -> SuiteEvaluation and BenchmarkEvaluation (neither sees the other) -> Sweeps -> Reporting -> fpbench.
// Each target names every module of this package it imports (scripts/test_imports.py, in the test command).
import PackageDescription

/// Compiled unoptimised, file by file on every core: code that runs little but takes long to optimise. The release
/// build is about a fifth shorter (docs/speed.md, "The tool's own loop", has the figures and what it costs at run time).
let unoptimised: [SwiftSetting] = [.unsafeFlags(["-Onone", "-no-whole-module-optimization"])]

let package = Package(
    name: "FingerprintBench",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "fpbench", targets: ["fpbench"]),
        .library(name: "Fingerprinting", targets: ["Fingerprinting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries (Debian packages installed by scripts/setup.sh).
        .systemLibrary(name: "CFFTW", path: "Sources/CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CSndFile", path: "Sources/CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CGSL", path: "Sources/CGSL", pkgConfig: "gsl", providers: [.apt(["libgsl-dev"])]),
        .systemLibrary(name: "CSoxr", path: "Sources/CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CRubberBand", path: "Sources/CRubberBand", pkgConfig: "rubberband", providers: [.apt(["librubberband-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CXXHash", path: "Sources/CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),

        // FFmpeg's headers (libavformat-dev, libavcodec-dev, libswresample-dev, libavutil-dev), its libraries loaded on first use.
        .target(name: "CFFmpeg", path: "Sources/CFFmpeg", linkerSettings: [.linkedLibrary("dl")]),
        // renameat2's exchange, which Swift's Glibc module does not expose (an outside system's index put in place).
        .target(name: "CFiles", path: "Sources/CFiles"),
        // Our numeric kernels, the same bits on every processor (a learned fingerprint's matrix products).
        .target(name: "CKernels", path: "Sources/CKernels"),
        // Nearest vectors by inner product: exact by our own kernel, approximate through FAISS (libfaiss-dev: a static
        // C++ library without its C API, so the shim is ours); OpenBLAS (libopenblas-serial-dev) draws synthetic vectors.
        // The serial OpenBLAS first, where Debian installed it: the threaded variant, which Debian prefers when both are
        // present, starts a thread at load that spins for about 0.1 CPU s in every process, and again after each product.
        .target(name: "CVectorSearch", path: "Sources/CVectorSearch",
                linkerSettings: [.linkedLibrary("faiss"), .linkedLibrary("openblas"), .linkedLibrary("gomp"),
                                 .unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "/usr/lib/x86_64-linux-gnu/openblas-serial",
                                               "-Xlinker", "-rpath", "-Xlinker", "/usr/lib/aarch64-linux-gnu/openblas-serial"])]),
        .target(name: "AudioIO", dependencies: ["CFFmpeg", "CSndFile", "CSoxr"]),
        .target(name: "DSP", dependencies: ["CFFTW", "CGSL"]),
        .target(name: "Fingerprinting", dependencies: ["AudioIO", "DSP", "CXXHash", "CVectorSearch", "CCrypto", "CKernels"],
                // nafp-small's weights, trained here (Algorithms/nafp-small/README.md), read at run time.
                resources: [.copy("Chang2021NAFP/nafp-small.fpnn")]),
        .target(name: "Degradation", dependencies: ["AudioIO", "DSP", "CRubberBand"]),
        .target(name: "OutsidePrograms", dependencies: ["AudioIO", "Fingerprinting", "CFiles"]),
        // What both engines use: datasets, the fingerprint cache, results files and their shards, statistics.
        .target(name: "Evaluation", dependencies: ["AudioIO", "DSP", "Fingerprinting", "Degradation", "OutsidePrograms"]),
        // The thesis suite: similarity matrices from the four tests.
        .target(name: "SuiteEvaluation", dependencies: ["AudioIO", "DSP", "Fingerprinting", "Degradation", "Evaluation"]),
        // The identification benchmark: whole tracks indexed, degraded queries found among them.
        .target(name: "BenchmarkEvaluation", dependencies: ["AudioIO", "DSP", "Fingerprinting", "Degradation", "OutsidePrograms", "Evaluation"]),
        // Sweeps, both engines' (levels to points, breaking points, operating points, skew) and their records.
        // Sweeps and Reporting drive the engines and write what they found: unoptimised.
        .target(name: "Sweeps", dependencies: ["AudioIO", "Degradation", "Fingerprinting", "OutsidePrograms", "Evaluation", "SuiteEvaluation", "BenchmarkEvaluation"],
                swiftSettings: unoptimised),
        .target(name: "Reporting", dependencies: ["AudioIO", "Fingerprinting", "Evaluation", "SuiteEvaluation", "BenchmarkEvaluation", "Sweeps"],
                swiftSettings: unoptimised),
        .executableTarget(name: "fpbench", dependencies: [
            "Fingerprinting", "AudioIO", "Degradation", "OutsidePrograms", "Evaluation", "SuiteEvaluation", "BenchmarkEvaluation", "Sweeps", "Reporting",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The tests' own code is unoptimised too: the code they test is the release build's, the suite runs as fast and
        // its module builds in half the time (docs/speed.md, "The tool's own loop").
        .testTarget(name: "FingerprintBenchTests", dependencies: ["fpbench", "Fingerprinting", "AudioIO", "DSP", "CGSL", "Degradation", "OutsidePrograms", "Evaluation", "SuiteEvaluation", "BenchmarkEvaluation", "Sweeps", "Reporting"],
                    path: "Tests/FingerprintBenchTests", swiftSettings: unoptimised),
    ]
)
