// swift-tools-version: 6.0
//
// bracelet: talk to V1 and V2 wrist bracelets over Bluetooth LE (BlueZ), decode what they send,
// summarise it per day and per night, and forward the summaries durably to a vitality pipeline.
//
// Layers, bottom to top (a module imports only modules listed above it):
//   BraceletProtocol   wire format: command frames, data packets, file layout, CRCs, GATT numbers
//   BraceletDecoder    hot path: raw-metric files -> column batches and slots; local dates, and the one
//                      JSON writer (canonical JSON, its indented layout and its primitives)
//   BraceletTransport  ATT PDUs, ATT bearer, GATT client, BlueZ sockets and HCI scanning
//   BraceletCapture    btsnoop files, HCI/ACL/L2CAP reassembly, transfer recovery from captures
//   BraceletSimulator  physiological model and simulated bracelet (test peer; make-captures records it)
//   BraceletSummaries  daily summaries, sleep sessions, HRV
//   BraceletStore      SQLite persistence (migrations, idempotent slots, outbox tables)
//   BraceletSync       outbox forwarder and sinks (webhook, JSON Lines)
//   BraceletVitality   VitalityRawMetrics adapters, windows and scoring
//   BraceletIngest     the one ingest pipeline: verified files (capture, live link, CSV) -> store,
//                      transfer progress, recomputed summaries, outbox
//   BraceletFleet      the fleet database on PostgreSQL (libpq): batched sink, fleet queries
//   BraceletGateway    the always-on service: enrolled bracelets synced on a schedule (LiveSync), the outbox
//                      delivered in the same process, operator events, status, metrics, sd_notify
//   BraceletExport     standard exports (Open mHealth, IEEE 1752, FHIR, ROOK, CSV) and the HTML day report
//   BraceletCLI        the `bracelet` command
// Beneath every layer: the C targets (CBlueZ, CSQLite, CCrypto, CTLS, CZlib, CZstd, CLibPQ, CCRCFolding, CDecodeKernels, CJSONLayout, CPageChecksum, CHeapTuning). Above every layer: the
// executables, the tests and the fuzz harnesses. Dependencies below equal the imports; tools/check-modules.py
// checks both rules in CI.
import PackageDescription

let package = Package(
    name: "Bracelet",
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
        // libssl: TLS for webhook deliveries, in BraceletSync's own HTTP client.
        .systemLibrary(name: "CTLS", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // libpq (libpq-dev's header; libpq5 at run time), opened with dlopen at the fleet code's first call: a
        // library linked to the executable is loaded, with Kerberos, LDAP and SASL, before every command.
        .target(name: "CLibPQ"),

        // libm: `rounded()` on Linux needs it when a module imports neither Foundation nor Glibc.
        .target(name: "BraceletProtocol", dependencies: ["CCRCFolding"], linkerSettings: [.linkedLibrary("m")]),
        // The bulk of the packet and file CRCs by carry-less multiplication (PCLMULQDQ), when the CPU has it.
        .target(name: "CCRCFolding", cSettings: [.unsafeFlags(["-O3"])]),
        // The decoder's column gathers in C: SSE2 transposes on x86-64, portable C elsewhere.
        .target(name: "CDecodeKernels", cSettings: [.unsafeFlags(["-O3"])]),
        // The indented layout of canonical JSON, 64 bytes classified at a time (clang vector extensions).
        .target(name: "CJSONLayout", cSettings: [.unsafeFlags(["-O3"])]),
        // The SQLite VFS shim that writes and verifies a checksum in every page of the database file.
        .target(name: "CPageChecksum", cSettings: [.unsafeFlags(["-O3"])]),
        .target(name: "CHeapTuning"),
        .target(name: "BraceletDecoder", dependencies: ["BraceletProtocol", "CDecodeKernels", "CJSONLayout"]),
        .target(name: "BraceletTransport", dependencies: ["BraceletProtocol", "CBlueZ"]),
        .target(name: "BraceletCapture", dependencies: ["BraceletProtocol", "BraceletDecoder", "BraceletTransport"]),
        .target(name: "BraceletSimulator", dependencies: ["BraceletProtocol", "BraceletDecoder", "BraceletTransport"]),
        .target(name: "BraceletSummaries", dependencies: ["BraceletDecoder"]),
        .target(name: "BraceletStore", dependencies: ["BraceletProtocol", "BraceletDecoder", "CSQLite", "CCrypto", "CZlib", "CZstd", "CPageChecksum"]),
        .target(name: "BraceletSync", dependencies: ["BraceletProtocol", "BraceletDecoder", "BraceletStore", "CCrypto", "CTLS"]),
        .target(name: "BraceletVitality", dependencies: ["BraceletDecoder", "BraceletSummaries", "BraceletStore"]),
        .target(
            name: "BraceletIngest",
            dependencies: ["BraceletProtocol", "BraceletDecoder", "BraceletTransport", "BraceletCapture", "BraceletSummaries",
                           "BraceletStore", "BraceletVitality"]
        ),
        .target(name: "BraceletFleet", dependencies: ["BraceletDecoder", "BraceletStore", "BraceletSummaries", "BraceletSync", "BraceletVitality", "CLibPQ"]),
        .target(
            name: "BraceletGateway",
            dependencies: ["BraceletProtocol", "BraceletDecoder", "BraceletTransport", "BraceletStore", "BraceletSummaries",
                           "BraceletVitality", "BraceletIngest", "BraceletSync", "BraceletFleet"]
        ),
        .target(
            name: "BraceletExport",
            dependencies: ["BraceletDecoder", "BraceletStore", "BraceletSummaries", "BraceletSync", "BraceletVitality"]
        ),
        .executableTarget(
            name: "BraceletCLI",
            dependencies: [
                "BraceletProtocol", "BraceletDecoder", "BraceletTransport", "BraceletCapture",
                "BraceletSimulator", "BraceletSummaries", "BraceletStore", "BraceletSync", "BraceletVitality", "BraceletIngest",
                "BraceletExport", "BraceletFleet", "BraceletGateway", "CHeapTuning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "make-captures",
            dependencies: ["BraceletSimulator", "BraceletCapture", "BraceletProtocol", "BraceletDecoder", "BraceletTransport"]
        ),

        .testTarget(name: "BraceletProtocolTests", dependencies: ["BraceletProtocol"]),
        .testTarget(name: "BraceletDecoderTests", dependencies: ["BraceletDecoder", "BraceletProtocol"]),
        .testTarget(name: "BraceletTransportTests", dependencies: ["BraceletTransport", "BraceletProtocol"]),
        .testTarget(
            name: "BraceletCaptureTests",
            dependencies: ["BraceletCapture", "BraceletSimulator", "BraceletDecoder", "BraceletProtocol", "BraceletTransport"]
        ),
        .testTarget(
            name: "BraceletSimulatorTests",
            dependencies: ["BraceletSimulator", "BraceletCapture", "BraceletDecoder", "BraceletProtocol", "BraceletTransport",
                           "BraceletIngest", "BraceletStore", "BraceletSummaries"]
        ),
        .testTarget(name: "BraceletSummariesTests", dependencies: ["BraceletSummaries", "BraceletDecoder"]),
        .testTarget(name: "BraceletStoreTests", dependencies: ["BraceletStore", "BraceletDecoder"]),
        .testTarget(name: "BraceletSyncTests", dependencies: ["BraceletSync", "BraceletStore", "BraceletProtocol", "BraceletDecoder"]),
        .testTarget(
            name: "BraceletIntegrationTests",
            dependencies: ["BraceletCapture", "BraceletSimulator", "BraceletSummaries", "BraceletStore", "BraceletVitality",
                           "BraceletIngest", "BraceletTransport", "BraceletDecoder", "BraceletProtocol", "BraceletExport"]
        ),
        .testTarget(
            name: "BraceletExportTests",
            dependencies: ["BraceletExport", "BraceletDecoder", "BraceletStore", "BraceletSummaries", "BraceletSync", "BraceletVitality"]
        ),
        .testTarget(name: "BraceletVitalityTests", dependencies: ["BraceletVitality", "BraceletDecoder", "BraceletSummaries"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "BraceletCLITests",
            dependencies: ["BraceletCLI", "BraceletCapture", "BraceletDecoder", "BraceletIngest", "BraceletProtocol", "BraceletStore", "BraceletSummaries",
                           "BraceletTransport", "BraceletVitality",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "BraceletGatewayTests",
            dependencies: ["BraceletGateway", "BraceletStore", "BraceletSimulator", "BraceletTransport", "BraceletProtocol", "BraceletVitality",
                           "BraceletDecoder", "BraceletFleet", "BraceletSync", "BraceletExport"]
        ),
        .testTarget(name: "BraceletFleetTests", dependencies: ["BraceletDecoder", "BraceletFleet", "BraceletStore", "BraceletSummaries", "BraceletSync", "BraceletVitality"]),
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
        ("FuzzHealth", ["BraceletProtocol"]),
        ("FuzzDecoders", ["BraceletDecoder", "BraceletProtocol"]),
        ("FuzzLayout", ["BraceletDecoder"]),
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

// Release builds carry the Swift runtime and Foundation inside the `bracelet` binary (what
// `swift build --static-swift-stdlib` does, made the default so every release build is the same one):
// the dynamic loader then resolves symbols across 39 libraries instead of 54, so each command starts
// about 10 ms sooner and 6 MB smaller, which counts on a gateway that runs many short commands.
// Every Swift module is compiled against the static runtime's module maps (they name the extra
// libraries static Foundation needs). No module of the product imports FoundationNetworking (the
// webhook goes through bracelet's own HTTP client over OpenSSL, BraceletSync), so the binary links
// no libcurl; with libpq opened only by the fleet code (CLibPQ), it starts with 12 libraries loaded
// instead of 32. Debug and test builds stay dynamic so they link fast, and the fuzz build keeps its
// sanitizer runtime.
if Context.environment["BRACELET_FUZZ"] == nil {
    for target in package.targets where target.type == .regular || target.type == .executable {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
    }
}
