import Foundation
import GatherDelivery
@testable import GatherTransport
import Logging
import XCTest

/// The shape a relay needs from the Transport: one plain listener, no TLS port and no certificate,
/// gather.v2 only. The same `LiveServer`, fed by a stand-in source, over real loopback sockets.
final class DoorOnlyServerTests: XCTestCase {
    private var folder = ""
    private var server: LiveServer!
    private var source: RecordingEvents!
    private var port = 0

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "door-only-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/Public", withIntermediateDirectories: true)
        try LiveServerTests.indexPage.write(toFile: folder + "/Public/index.html", atomically: true, encoding: .utf8)
        let configuration = TransportConfiguration(host: "127.0.0.1", tls: nil, spectatorPort: 0, protocols: [.v2],
                                                   publicDirectory: folder + "/Public", dynamicRoutes: { _ in nil })
        source = RecordingEvents()
        server = LiveServer(configuration: configuration, logger: Logger(label: "test.door-only"), source: source)
        source.server = server
        let ports = try server.start()
        XCTAssertNil(ports.tls, "no TLS listener was asked for")
        port = try XCTUnwrap(ports.spectator)
    }

    override func tearDownWithError() throws {
        server?.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func upgrade(offering subprotocol: String) throws -> (client: TLSTestClient, response: HTTPTestResponse) {
        let client = try TLSTestClient(plainPort: port)
        let request = "GET /live HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: \(subprotocol)\r\n\r\n"
        return (client, try client.exchange(request))
    }

    func testAHandshakeThatDoesNotOfferGatherV2IsRefusedWithAdvice() throws {
        let refused = try upgrade(offering: "gather.v1")
        XCTAssertEqual(refused.response.status, 400)
        XCTAssertTrue(refused.response.text.contains("gather.v2"), refused.response.text)
        XCTAssertFalse(refused.response.text.contains("gather.v1"), "the advice names only what this server speaks")
        XCTAssertEqual(source.openedCount, 0)
    }

    func testAHandshakeOfferingBothGetsGatherV2AndIsServed() throws {
        let (client, response) = try upgrade(offering: "gather.v1, gather.v2")
        XCTAssertEqual(response.status, 101)
        XCTAssertEqual(response.headers["sec-websocket-protocol"], "gather.v2")
        XCTAssertTrue(try client.readText().hasPrefix("welcome #"))
        server.deliver([.publishState(StateFrames(version: 3, v1Snapshot: Array("v1".utf8), v2Snapshot: Array("v2 snapshot".utf8),
                                                  v2Patch: nil))])
        XCTAssertEqual(try client.readText(), "v2 snapshot")
    }

    func testPagesAreServedAndTheOrganiserConsoleIsNotHere() throws {
        let page = try TLSTestClient(plainPort: port)
            .exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.text, LiveServerTests.indexPage)
        let organiser = try TLSTestClient(plainPort: port)
            .exchange("GET /organiser.html HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(organiser.status, 404, "no TLS port to send organisers to")
        XCTAssertNil(organiser.headers["location"])
    }

    func testAConfigurationWithNothingToServeIsRefusedBeforeStarting() {
        var configuration = TransportConfiguration(host: "127.0.0.1", tls: nil, spectatorPort: nil,
                                                   publicDirectory: folder + "/Public", dynamicRoutes: { _ in nil })
        XCTAssertNotNil(configuration.problem)
        XCTAssertThrowsError(try LiveServer(configuration: configuration, logger: Logger(label: "test"), source: source).start())
        configuration.spectatorPort = 0
        configuration.protocols = []
        XCTAssertEqual(configuration.problem, "no WebSocket protocol to speak")
    }

    func testOffersAreReadAsACommaSeparatedList() {
        XCTAssertTrue(HandshakeRules.offersAny(of: [.v2], in: "gather.v1,gather.v2"))
        XCTAssertTrue(HandshakeRules.offersAny(of: [.v2], in: " gather.v2 "))
        XCTAssertFalse(HandshakeRules.offersAny(of: [.v2], in: "gather.v1"))
        XCTAssertFalse(HandshakeRules.offersAny(of: [.v2], in: "gather.v2x, chat"))
        XCTAssertTrue(HandshakeRules.offersAny(of: [.v2], in: nil), "no offer is refused later, with the same advice")
    }
}
