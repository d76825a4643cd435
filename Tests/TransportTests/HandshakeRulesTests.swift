import Foundation
@testable import GatherTransport
import GatherDelivery
import XCTest

final class HandshakeRulesTests: XCTestCase {
    // MARK: - Origin

    func testSameOriginBrowsersAndNativeClientsPass() {
        XCTAssertTrue(HandshakeRules.originAllowed(origin: nil, host: "192.168.1.20:8443"))
        XCTAssertTrue(HandshakeRules.originAllowed(origin: "https://192.168.1.20:8443", host: "192.168.1.20:8443"))
        XCTAssertTrue(HandshakeRules.originAllowed(origin: "https://Pitch.local:8443", host: "pitch.local:8443"))
        XCTAssertTrue(HandshakeRules.originAllowed(origin: "https://[::1]:8443", host: "[::1]:8443"))
        XCTAssertTrue(HandshakeRules.originAllowed(origin: "https://pitch.local", host: "pitch.local:443"))
    }

    func testForeignOriginsAreRefused() {
        XCTAssertFalse(HandshakeRules.originAllowed(origin: "https://evil.example", host: "192.168.1.20:8443"))
        XCTAssertFalse(HandshakeRules.originAllowed(origin: "https://192.168.1.20:9443", host: "192.168.1.20:8443"))
        XCTAssertFalse(HandshakeRules.originAllowed(origin: "https://192.168.1.20.evil.example:8443",
                                                    host: "192.168.1.20:8443"))
        XCTAssertFalse(HandshakeRules.originAllowed(origin: "null", host: "192.168.1.20:8443"))
        XCTAssertFalse(HandshakeRules.originAllowed(origin: "file://", host: "192.168.1.20:8443"))
        XCTAssertFalse(HandshakeRules.originAllowed(origin: "https://pitch.local:8443", host: nil))
    }

    // MARK: - Static files

    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("js"), withIntermediateDirectories: true)
        try Data("<h1>hi</h1>".utf8).write(to: root.appendingPathComponent("index.html"))
        try Data("export {}".utf8).write(to: root.appendingPathComponent("js/live.js"))
        try Data("secret".utf8).write(to: root.appendingPathComponent(".env"))
        try Data("outside".utf8).write(to: root.deletingLastPathComponent().appendingPathComponent("outside-\(root.lastPathComponent).txt"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("escape.txt").path,
                                                   withDestinationPath: "/etc/hostname")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
        try? FileManager.default.removeItem(at: root.deletingLastPathComponent().appendingPathComponent("outside-\(root.lastPathComponent).txt"))
    }

    func testPagesAndFoldersResolveInsideTheRoot() {
        let resolvedRoot = root.resolvingSymlinksInPath().path
        XCTAssertEqual(HandshakeRules.staticFile(for: "/", root: root.path), resolvedRoot + "/index.html")
        XCTAssertEqual(HandshakeRules.staticFile(for: "/index.html", root: root.path), resolvedRoot + "/index.html")
        XCTAssertEqual(HandshakeRules.staticFile(for: "/js/live.js", root: root.path), resolvedRoot + "/js/live.js")
    }

    func testNothingOutsideTheRootOrHiddenIsServed() {
        for path in ["/../outside-\(root.lastPathComponent).txt", "/js/../../x", "/.env", "/escape.txt",
                     "/missing.html", "/js", "index.html", "/js\\live.js", "/a\0b", "/./index.html"] {
            XCTAssertNil(HandshakeRules.staticFile(for: path, root: root.path), path)
        }
    }

    func testContentTypesOfThePages() {
        XCTAssertEqual(HandshakeRules.contentType(forFile: "/x/index.html"), "text/html; charset=utf-8")
        XCTAssertEqual(HandshakeRules.contentType(forFile: "/x/live.js"), "text/javascript; charset=utf-8")
        XCTAssertEqual(HandshakeRules.contentType(forFile: "/x/app.CSS"), "text/css; charset=utf-8")
        XCTAssertEqual(HandshakeRules.contentType(forFile: "/x/qr.svg"), "image/svg+xml")
        XCTAssertEqual(HandshakeRules.contentType(forFile: "/x/blob"), "application/octet-stream")
    }

    func testEveryAnswerCarriesAStrictContentSecurityPolicy() {
        for door in [Door.tls, .spectator] {
            let headers = HandshakeRules.securityHeaders(door)
            let csp = headers.first { $0.0 == "Content-Security-Policy" }?.1 ?? ""
            XCTAssertTrue(csp.contains("default-src 'self'"))
            XCTAssertTrue(csp.contains("script-src 'self'"))
            XCTAssertFalse(csp.contains("unsafe-inline"))
            XCTAssertTrue(headers.contains { $0 == ("X-Content-Type-Options", "nosniff") })
            XCTAssertFalse(headers.contains { $0.0 == "Strict-Transport-Security" },
                           "HSTS would send spectators' phones from the plain door to TLS")
        }
    }

    // MARK: - The spectator door

    func testTheSpectatorDoorServesWatchingAndSendsOrganisersToTLS() {
        for path in ["/", "/index.html", "/scoreboard.html", "/trust.html", "/ca.pem", "/qr.svg", "/healthz",
                     "/api/history.json", "/api/players.csv", "/js/live.js", "/css/app.css", "/i18n/es.json"] {
            XCTAssertEqual(HandshakeRules.spectatorDoor(path: path), .serve, path)
        }
        XCTAssertEqual(HandshakeRules.spectatorDoor(path: "/organiser.html"), .toTLS)
        for path in ["/metrics", "/sw.js", "/js", "/secret", "/organiser.html.bak"] {
            XCTAssertEqual(HandshakeRules.spectatorDoor(path: path), .notHere, path)
        }
    }

    func testABrowserOnThePlainDoorMayOmitPort80() {
        XCTAssertTrue(HandshakeRules.originAllowed(origin: "http://laptop.local", host: "laptop.local", door: .spectator))
        XCTAssertTrue(HandshakeRules.originAllowed(origin: "http://10.0.0.2:8080", host: "10.0.0.2:8080", door: .spectator))
        XCTAssertFalse(HandshakeRules.originAllowed(origin: "http://evil.example", host: "10.0.0.2:8080", door: .spectator))
    }
}
