// swift-tools-version:6.0
import PackageDescription

/// Targets follow docs/ARCHITECTURE.md: Model ← Presenters ← Coordinator, Store; the View (Transport,
/// pages) reaches C through thin system-library modules and one lws support module; the Coordinator
/// and the Transport meet only in `GatherDelivery`; App is the composition root (a library, so it is
/// tested) and `gather` only its entry point.
let package = Package(
    name: "FootballGatherLive",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "gather", targets: ["GatherMain"]),
        .executable(name: "gather-bench", targets: ["GatherBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // MARK: - C modules
        .systemLibrary(name: "CLibWebSockets", path: "Sources/CLibWebSockets", pkgConfig: "libwebsockets",
                       providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CQREncode", path: "Sources/CQREncode", pkgConfig: "libqrencode",
                       providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CNats", path: "Sources/CNats", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),
        .systemLibrary(name: "CPostgres", path: "Sources/CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        .target(name: "GatherLWS", dependencies: ["CLibWebSockets"], path: "Sources/LWS"),

        // MARK: - Pure core
        .target(name: "GatherModel", path: "Sources/Model"),
        .target(name: "GatherDelivery", path: "Sources/Delivery"),
        .target(name: "GatherPresenters", dependencies: ["GatherModel", "GatherDelivery"], path: "Sources/Presenters"),
        /// The club's week (members, fixtures, dates, answers): values and pure rules, Foundation only.
        .target(name: "ClubModel", path: "Sources/ClubModel"),

        // MARK: - Single writer and its memory
        .target(name: "GatherStore", dependencies: [
            "GatherModel", .product(name: "GRDB", package: "GRDB.swift"),
        ], path: "Sources/Store"),
        .target(name: "GatherCoordinator", dependencies: [
            "GatherModel", "GatherPresenters", "GatherStore", "GatherDelivery",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Coordinator"),

        /// The club's memory on PostgreSQL (libpq), shared by every `gather club serve` instance.
        .target(name: "ClubStore", dependencies: [
            "ClubModel", "CPostgres", .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/ClubStore"),
        /// The club's scope: its API judged in one transaction per change, its live follow, calendars.
        .target(name: "ClubCoordinator", dependencies: [
            "ClubModel", "ClubStore", "GatherModel", "GatherPresenters", "GatherSecurity", "GatherDelivery",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/ClubCoordinator"),

        // MARK: - View: the transport to the pages
        .target(name: "GatherTransport", dependencies: [
            "CLibWebSockets", "COpenSSL", "GatherLWS", "GatherDelivery", .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Transport"),

        // MARK: - The venue stream on NATS (publisher, relay follower)
        .target(name: "GatherStream", dependencies: [
            "CNats", "GatherDelivery", "GatherModel", "GatherPresenters", "GatherSecurity",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Stream"),

        // MARK: - OpenSSL services
        .target(name: "GatherSecurity", dependencies: ["COpenSSL"], path: "Sources/Security"),
        .target(name: "GatherCertificates", dependencies: ["COpenSSL", "GatherSecurity"], path: "Sources/Certificates"),

        // MARK: - Composition root and executables
        .target(name: "GatherApp", dependencies: [
            "GatherModel", "GatherPresenters", "GatherCoordinator", "GatherStore", "GatherTransport", "GatherDelivery",
            "GatherSecurity", "GatherCertificates", "CQREncode", "GatherStream", "ClubCoordinator", "ClubStore", "ClubModel",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/App"),
        .executableTarget(name: "GatherMain", dependencies: ["GatherApp"], path: "Sources/Main"),
        .executableTarget(name: "GatherBench", dependencies: [
            "CLibWebSockets", "COpenSSL", "GatherLWS", "GatherModel", "CNats",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Sources/Bench"),

        // MARK: - Tests
        /// Test-only conveniences (pitch 1's shorthands), kept out of the Model's public API.
        .target(name: "GatherModelTestSupport", dependencies: ["GatherModel"], path: "Tests/Support/GatherModelTestSupport"),
        .testTarget(name: "DeliveryTests", dependencies: ["GatherDelivery"], path: "Tests/DeliveryTests"),
        .testTarget(name: "LWSTests", dependencies: ["GatherLWS", "CLibWebSockets"], path: "Tests/LWSTests"),
        .testTarget(name: "ClubModelTests", dependencies: ["ClubModel"], path: "Tests/ClubModelTests"),
        .testTarget(name: "ClubCoordinatorTests", dependencies: ["ClubCoordinator", "ClubModel", "GatherModel"],
                    path: "Tests/ClubCoordinatorTests"),
        .testTarget(name: "ModelTests", dependencies: ["GatherModel", "GatherModelTestSupport"], path: "Tests/ModelTests"),
        .testTarget(name: "PresentersTests", dependencies: ["GatherPresenters", "GatherDelivery", "GatherModelTestSupport"],
                    path: "Tests/PresentersTests"),
        .testTarget(name: "StoreTests", dependencies: ["GatherStore", "GatherModelTestSupport"], path: "Tests/StoreTests"),
        .testTarget(name: "CoordinatorTests", dependencies: ["GatherCoordinator", "GatherStore", "GatherDelivery",
                                                             "GatherModelTestSupport"],
                    path: "Tests/CoordinatorTests"),
        .testTarget(name: "TransportTests", dependencies: [
            "GatherTransport", "GatherDelivery", "GatherLWS", "CLibWebSockets", "COpenSSL", "GatherCertificates",
        ], path: "Tests/TransportTests"),
        .testTarget(name: "StreamTests", dependencies: ["GatherStream", "GatherDelivery", "GatherModel", "GatherPresenters",
                                                         "GatherSecurity"],
                    path: "Tests/StreamTests"),
        .testTarget(name: "ClubStoreTests", dependencies: ["ClubStore", "ClubModel"], path: "Tests/ClubStoreTests"),
        .testTarget(name: "SecurityTests", dependencies: ["GatherSecurity"], path: "Tests/SecurityTests"),
        .testTarget(name: "CertificatesTests", dependencies: ["GatherCertificates", "GatherSecurity", "COpenSSL"], path: "Tests/CertificatesTests"),
        .testTarget(name: "AppTests", dependencies: [
            "GatherApp", "GatherCoordinator", "GatherTransport", "GatherCertificates",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Tests/AppTests"),
    ]
)
