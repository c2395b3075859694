// swift-tools-version: 6.0
//
// bracelet: talk to V1 and V2 wrist bracelets over Bluetooth LE (BlueZ), decode what they send,
// summarise it per day and per night, and forward the summaries durably to a vitality pipeline.
//
// Layers, bottom to top (a module imports only modules listed above it):
//   BraceletProtocol   wire format: command frames, data packets, file layout, CRCs, GATT numbers
//   BraceletDecoder    hot path: raw-metric files -> column batches and slots
//   BraceletTransport  ATT PDUs, ATT bearer, GATT client, BlueZ sockets and HCI scanning
//   BraceletCapture    btsnoop files, HCI/ACL/L2CAP reassembly, transfer recovery from captures
//   BraceletSimulator  physiological model and simulated bracelet (test peer, capture generator)
//   BraceletSummaries  daily summaries, sleep sessions, HRV
//   BraceletStore      SQLite persistence (migrations, idempotent slots, outbox tables)
//   BraceletSync       outbox forwarder and sinks (webhook, JSON Lines)
//   BraceletVitality   VitalityRawMetrics adapters, windows and scoring
//   BraceletIngest     the one ingest pipeline: verified files (capture, live link, CSV) -> store,
//                      transfer progress, recomputed summaries, outbox
//   BraceletFleet      the fleet database on PostgreSQL (libpq): batched sink, fleet queries
//   BraceletExport     standard exports (Open mHealth, IEEE 1752, FHIR, ROOK, CSV) and the HTML day report
//   BraceletCLI        the `bracelet` command
import PackageDescription

let package = Package(
    name: "Bracelet",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bracelet", targets: ["BraceletCLI"]),
        .executable(name: "make-captures", targets: ["make-captures"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(name: "CBlueZ", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // libm: `rounded()` on Linux needs it when a module imports neither Foundation nor Glibc.
        .target(name: "BraceletProtocol", linkerSettings: [.linkedLibrary("m")]),
        // The decoder's column gathers in C: SSE2 transposes on x86-64, portable C elsewhere.
        .target(name: "CDecodeKernels", cSettings: [.unsafeFlags(["-O3"])]),
        .target(name: "BraceletDecoder", dependencies: ["BraceletProtocol", "CDecodeKernels"]),
        .target(name: "BraceletTransport", dependencies: ["BraceletProtocol", "CBlueZ"]),
        .target(name: "BraceletCapture", dependencies: ["BraceletProtocol", "BraceletDecoder", "BraceletTransport"]),
        .target(name: "BraceletSimulator", dependencies: ["BraceletProtocol", "BraceletDecoder", "BraceletTransport", "BraceletCapture"]),
        .target(name: "BraceletSummaries", dependencies: ["BraceletDecoder"]),
        .target(name: "BraceletStore", dependencies: ["BraceletDecoder", "BraceletSummaries", "CSQLite"]),
        .target(name: "BraceletSync", dependencies: ["BraceletStore", "CCrypto"]),
        .target(name: "BraceletVitality", dependencies: ["BraceletSummaries", "BraceletStore", "BraceletSync"]),
        .target(
            name: "BraceletIngest",
            dependencies: ["BraceletProtocol", "BraceletDecoder", "BraceletTransport", "BraceletCapture", "BraceletSummaries",
                           "BraceletStore", "BraceletVitality"]
        ),
        .target(name: "BraceletFleet", dependencies: ["BraceletStore", "BraceletSummaries", "BraceletSync", "BraceletVitality", "CLibPQ"]),
        .target(name: "BraceletExport", dependencies: ["BraceletStore", "BraceletSummaries", "BraceletSync", "BraceletVitality"]),
        .executableTarget(
            name: "BraceletCLI",
            dependencies: [
                "BraceletProtocol", "BraceletDecoder", "BraceletTransport", "BraceletCapture",
                "BraceletSimulator", "BraceletSummaries", "BraceletStore", "BraceletSync", "BraceletVitality", "BraceletIngest",
                "BraceletExport", "BraceletFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "make-captures",
            dependencies: ["BraceletSimulator", "BraceletCapture", "BraceletProtocol"]
        ),

        .testTarget(name: "BraceletProtocolTests", dependencies: ["BraceletProtocol"]),
        .testTarget(name: "BraceletDecoderTests", dependencies: ["BraceletDecoder", "BraceletProtocol"]),
        .testTarget(name: "BraceletTransportTests", dependencies: ["BraceletTransport"]),
        .testTarget(name: "BraceletCaptureTests", dependencies: ["BraceletCapture", "BraceletSimulator"]),
        .testTarget(name: "BraceletSimulatorTests", dependencies: ["BraceletSimulator"]),
        .testTarget(name: "BraceletSummariesTests", dependencies: ["BraceletSummaries"]),
        .testTarget(name: "BraceletStoreTests", dependencies: ["BraceletStore"]),
        .testTarget(name: "BraceletSyncTests", dependencies: ["BraceletSync"]),
        .testTarget(
            name: "BraceletIntegrationTests",
            dependencies: ["BraceletCapture", "BraceletSimulator", "BraceletSummaries", "BraceletStore", "BraceletVitality",
                           "BraceletIngest", "BraceletTransport"]
        ),
        .testTarget(name: "BraceletExportTests", dependencies: ["BraceletExport", "BraceletStore", "BraceletSummaries", "BraceletSync", "BraceletVitality"]),
        .testTarget(name: "BraceletVitalityTests", dependencies: ["BraceletVitality"], resources: [.copy("Fixtures")]),
        .testTarget(name: "BraceletFleetTests", dependencies: ["BraceletFleet", "BraceletStore", "BraceletSummaries", "BraceletSync"]),
        .testTarget(name: "BraceletCLITests", dependencies: ["BraceletCLI"]),
    ]
)

// libFuzzer harnesses (Fuzz/), one executable per parser. They exist only when BRACELET_FUZZ is set,
// which tools/fuzz.sh does when it builds them with -sanitize=fuzzer,address into .build-fuzz; a plain
// `swift build` never sees them (their LLVMFuzzerTestOneInput needs libFuzzer's main).
if Context.environment["BRACELET_FUZZ"] != nil {
    let harnesses: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzBtsnoop", ["BraceletCapture"]),
        ("FuzzCaptureReader", ["BraceletCapture"]),
        ("FuzzReplay", ["BraceletCapture"]),
        ("FuzzFrames", ["BraceletProtocol"]),
        ("FuzzDecoders", ["BraceletDecoder", "BraceletProtocol"]),
        ("FuzzAdvertisement", ["BraceletProtocol", "BraceletTransport"]),
        ("FuzzATTPDU", ["BraceletTransport"]),
        ("FuzzCSV", ["BraceletSummaries"]),
        ("FuzzROOK", ["BraceletVitality"]),
    ]
    package.targets.append(.target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"))
    for harness in harnesses {
        package.targets.append(.executableTarget(name: harness.name, dependencies: harness.dependencies + ["CFuzzDriver"],
                                                 path: "Fuzz/\(harness.name)"))
        package.products.append(.executable(name: harness.name, targets: [harness.name]))
    }
}
