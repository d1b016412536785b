// swift-tools-version: 6.1
// Micro-benchmarks (ordo-one/benchmark), in a package of their own so the main build stays fast.
// Run from this folder: swift package benchmark
import PackageDescription

let package = Package(
    name: "imgbench-benchmarks",
    dependencies: [
        .package(name: "imgbench", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "PipelineBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ImageBench", package: "imgbench"),
            ],
            path: "Benchmarks/PipelineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ]
)
