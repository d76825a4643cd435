import Foundation
@testable import GatherApp
import GatherCertificates
import GatherCoordinator
import GatherTransport
import XCTest

/// What the trust page is built on: the CA served so phones offer to install it, and the
/// fingerprint to compare before anyone does.
final class TrustRoutesTests: XCTestCase {
    private let fingerprint = "A1:B2:C3:D4:E5:F6:07:18:29:3A:4B:5C:6D:7E:8F:90:01:12:23:34:45:56:67:78:89:9A:AB:BC:CD:DE:EF:F0"

    private func routes(ca: Bool) -> HTTPRoutes {
        HTTPRoutes(metrics: CoordinatorMetrics(), exports: ExportDocuments(), connections: { 0 },
                   fanOut: { FanOutMetrics.Reading() }, caCertificate: ca ? Array("-----BEGIN CERTIFICATE-----\n".utf8) : nil,
                   caFingerprint: ca ? fingerprint : nil,
                   links: ServerLinks(identity: MachineIdentity(hostName: "laptop", ipAddresses: []), host: "127.0.0.1"),
                   metricsReaders: [])
    }

    private func get(_ routes: HTTPRoutes, _ path: String) -> HTTPResponse? {
        routes.respond(to: HTTPRequest(method: "GET", path: path, query: nil, remoteAddress: "192.168.1.30", door: .spectator))
    }

    func testTheShortCheckIsTheFirstAndLastEightHexCharactersGrouped() {
        XCTAssertEqual(FingerprintCheck.short(fingerprint), "A1B2 C3D4 … CDDE EFF0")
        XCTAssertEqual(FingerprintCheck.short("ab:cd"), "ABCD", "too short to cut: all of it")
        XCTAssertEqual(FingerprintCheck.grouped("A1B2C3D4E"), "A1B2 C3D4 E")
    }

    func testTheCAIsServedAsACACertificateUnderItsRealName() throws {
        let response = try XCTUnwrap(get(routes(ca: true), "/ca.pem"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.contentType, "application/x-x509-ca-cert")
        XCTAssertEqual(response.extraHeaders.first?.1, "attachment; filename=\"football-gather-live-ca.pem\"")
        XCTAssertNil(get(routes(ca: false), "/ca.pem"), "no CA with the operator's own certificate")
    }

    func testTrustJSONGivesTheFingerprintTheShortCheckAndTheFileName() throws {
        let response = try XCTUnwrap(get(routes(ca: true), "/api/trust.json"))
        XCTAssertEqual(response.contentType, "application/json; charset=utf-8")
        let fields = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String])
        XCTAssertEqual(fields, ["fingerprint": fingerprint, "shortCheck": "A1B2 C3D4 … CDDE EFF0",
                                "file": "football-gather-live-ca.pem"])
        XCTAssertNil(get(routes(ca: false), "/api/trust.json"))
    }
}

/// The projector prints the spectator address; a shared result card names the venue, if any.
final class JoinRoutesTests: XCTestCase {
    private func join(venue: String?) throws -> [String: String] {
        let routes = HTTPRoutes(metrics: CoordinatorMetrics(), exports: ExportDocuments(), connections: { 0 },
                                fanOut: { FanOutMetrics.Reading() }, caCertificate: nil,
                                links: ServerLinks(identity: MachineIdentity(hostName: "laptop", ipAddresses: []),
                                                   host: "127.0.0.1", venue: venue),
                                metricsReaders: [])
        let body = try XCTUnwrap(routes.respond(to: HTTPRequest(method: "GET", path: "/api/join.json", query: nil))).body
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body)) as? [String: String])
    }

    func testJoinNamesTheVenueOnlyWhenThereIsOne() throws {
        XCTAssertEqual(try join(venue: "riverside"), ["spectatorURL": "https://127.0.0.1:0/", "venue": "riverside"])
        XCTAssertEqual(try join(venue: nil), ["spectatorURL": "https://127.0.0.1:0/"])
    }
}

/// Excel opens a CSV without a byte-order mark in the system's legacy code page.
final class CSVDownloadTests: XCTestCase {
    func testBothCSVDownloadsStartWithAUTF8BOM() throws {
        let routes = HTTPRoutes(metrics: CoordinatorMetrics(), exports: ExportDocuments(), connections: { 0 },
                                fanOut: { FanOutMetrics.Reading() }, caCertificate: nil,
                                links: ServerLinks(identity: MachineIdentity(hostName: "laptop", ipAddresses: []), host: "127.0.0.1"),
                                metricsReaders: [])
        for path in ["/api/history.csv", "/api/players.csv"] {
            let body = try XCTUnwrap(routes.respond(to: HTTPRequest(method: "GET", path: path, query: nil))).body
            XCTAssertEqual(Array(body.prefix(3)), [0xEF, 0xBB, 0xBF], path)
            XCTAssertTrue(String(decoding: body.dropFirst(3), as: UTF8.self).hasPrefix("id,"), path)
        }
        let json = try XCTUnwrap(routes.respond(to: HTTPRequest(method: "GET", path: "/api/history.json", query: nil))).body
        XCTAssertEqual(json.first, UInt8(ascii: "{"), "JSON gets no BOM")
    }
}
