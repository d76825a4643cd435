import Foundation
import GatherCertificates
import GatherDelivery
import GatherTransport
import Logging
import XCTest

/// The real `LiveServer` on a free loopback port with a freshly made CA, talked to over verified
/// TLS as a phone would: pages, endpoints, the `gather.v1` WebSocket and shutdown.
final class LiveServerTests: XCTestCase {
    private var folder = ""
    private var caPath = ""
    private var server: LiveServer!
    private var events: RecordingEvents!
    private var port = 0

    static let indexPage = "<!doctype html><html><title>Live</title><body>spectators</body></html>\n"

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "live-server-\(UUID().uuidString)"
        let certificates = try CertificateAuthority.ensure(in: folder + "/certs",
                                                           identity: MachineIdentity(hostName: "pitch-laptop", ipAddresses: []))
        caPath = try XCTUnwrap(certificates.caCertificatePath)
        try FileManager.default.createDirectory(atPath: folder + "/Public", withIntermediateDirectories: true)
        try Self.indexPage.write(toFile: folder + "/Public/index.html", atomically: true, encoding: .utf8)

        var configuration = TransportConfiguration(
            host: "127.0.0.1", port: 0, certificatePath: certificates.certificatePath,
            privateKeyPath: certificates.privateKeyPath, publicDirectory: folder + "/Public",
            dynamicRoutes: { request in
                guard request.path == "/healthz" else { return nil }
                return HTTPResponse(status: 200, contentType: "application/json",
                                    body: Array(#"{"status":"ok","query":"\#(request.query ?? "")"}"#.utf8))
            })
        configuration.maximumConnections = 64
        events = RecordingEvents()
        server = LiveServer(configuration: configuration, logger: Logger(label: "test.transport"), source: events)
        events.server = server
        port = try XCTUnwrap(server.start().tls)
        XCTAssertGreaterThan(port, 0, "port 0 asks for a free port; start() tells which")
    }

    override func tearDownWithError() throws {
        server?.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func connect() throws -> TLSTestClient { try TLSTestClient(port: port, caPath: caPath) }

    private func get(_ path: String, method: String = "GET") throws -> HTTPTestResponse {
        let body = method == "GET" ? "" : "Content-Length: 0\r\n"
        return try connect().exchange("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(body)Connection: close\r\n\r\n")
    }

    /// Opens `/live`; returns the client and the handshake's answer.
    private func upgrade(subprotocol: String? = "gather.v1", origin: String? = nil) throws
        -> (client: TLSTestClient, response: HTTPTestResponse, key: String) {
        let client = try connect()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request = "GET /live HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        if let origin { request += "Origin: \(origin)\r\n" }
        return (client, try client.exchange(request + "\r\n"), key)
    }

    /// A connection past its 101 and its greeting, and the id the server gave it.
    private func openLive(_ wire: WireProtocol = .v1) throws -> (client: TLSTestClient, id: ConnectionID) {
        let (client, response, key) = try upgrade(subprotocol: wire.rawValue, origin: "https://127.0.0.1:\(port)")
        XCTAssertEqual(response.status, 101)
        XCTAssertEqual(response.headers["sec-websocket-accept"], TLSTestClient.webSocketAccept(for: key))
        XCTAssertEqual(response.headers["sec-websocket-protocol"], wire.rawValue)
        let greeting = try client.readText()
        let id = try XCTUnwrap(RecordingEvents.connection(inGreeting: greeting), greeting)
        return (client, id)
    }

    // MARK: - HTTP

    func testTheSpectatorPageIsServedOverVerifiedTLSWithSecurityHeaders() throws {
        let page = try get("/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.text, Self.indexPage)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertTrue(page.headers["content-security-policy"]?.contains("default-src 'self'") == true,
                      "\(page.headers)")
        XCTAssertEqual(page.headers["x-content-type-options"], "nosniff")
        XCTAssertEqual(page.headers["x-frame-options"], "DENY")
    }

    /// The control for every other test: the client really checks the chain, so a pass above
    /// means the server presented the certificate its own CA signed.
    func testAClientThatTrustsAnotherCARefusesTheServer() throws {
        let stranger = try CertificateAuthority.ensure(in: folder + "/other-certs",
                                                       identity: MachineIdentity(hostName: "pitch-laptop", ipAddresses: []))
        XCTAssertThrowsError(try TLSTestClient(port: port, caPath: try XCTUnwrap(stranger.caCertificatePath))) { error in
            XCTAssertTrue("\(error)".contains("certificate verify failed"), "\(error)")
        }
    }

    func testDynamicRoutesAreServedUnknownPathsAre404AndOnlyGetIsAllowed() throws {
        let health = try get("/healthz?probe=1")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.text, #"{"status":"ok","query":"probe=1"}"#, "the route sees the path without its query")
        XCTAssertEqual(health.headers["content-type"], "application/json")
        XCTAssertEqual(health.headers["cache-control"], "no-store")
        XCTAssertEqual(health.headers["x-content-type-options"], "nosniff", "dynamic answers carry the headers too")

        let missing = try get("/nothing-here.html")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(try get("/../certs/server-key.pem").status, 404, "nothing outside Public/")

        let post = try get("/healthz", method: "POST")
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.headers["allow"], "GET")
    }

    // MARK: - The WebSocket

    func testALiveConnectionIsGreetedEchoedAndFollowsOnlyNewerSnapshots() throws {
        let (client, id) = try openLive()
        XCTAssertTrue(events.waitFor { $0.contains(.opened(id, remoteAddress: "127.0.0.1")) }, "\(events.log)")

        try client.sendText(#"{"type":"hello","note":"ünïcödé"}"#)
        XCTAssertEqual(try client.readText(), #"echo {"type":"hello","note":"ünïcödé"}"#)
        XCTAssertTrue(events.log.contains(.received(#"{"type":"hello","note":"ünïcödé"}"#, from: id)))

        server.deliver([.publishState(StateFrames(version: 1, v1Snapshot: Array("snapshot 1".utf8), v2Snapshot: Array("v2 snapshot 1".utf8), v2Patch: nil))])
        XCTAssertEqual(try client.readText(), "snapshot 1")

        // An older version arriving late must not replace what phones already have: the next
        // frame is the reply sent after it, and a phone joining now still starts from version 1.
        server.deliver([.publishState(StateFrames(version: 0, v1Snapshot: Array("snapshot 0".utf8), v2Snapshot: Array("v2 snapshot 0".utf8), v2Patch: nil))])
        server.deliver([.send(id, Array("after the stale one".utf8))])
        XCTAssertEqual(try client.readText(), "after the stale one")
        let (late, _) = try openLive()
        XCTAssertEqual(try late.readText(), "snapshot 1")

        server.deliver([.publishState(StateFrames(version: 2, v1Snapshot: Array("snapshot 2".utf8), v2Snapshot: Array("v2 snapshot 2".utf8), v2Patch: nil))])
        XCTAssertEqual(try client.readText(), "snapshot 2")
        XCTAssertEqual(try late.readText(), "snapshot 2")
    }

    /// What `/metrics` reports: every byte each protocol's phones were sent, and one fan-out
    /// latency per connection brought to the new version. A dynamic route reads them as of its
    /// request, not as of the last once-a-second publish.
    func testTheServerCountsTheBytesAndMessagesItWritesPerProtocol() throws {
        let (v1, _) = try openLive(.v1)
        let (v2, _) = try openLive(.v2)
        server.deliver([.publishState(StateFrames(version: 1, v1Snapshot: Array("snapshot 1".utf8),
                                                  v2Snapshot: Array(repeating: UInt8(ascii: "x"), count: 200), v2Patch: nil))])
        XCTAssertEqual(try v1.readText(), "snapshot 1")
        XCTAssertEqual(try v2.readText().count, 200)
        XCTAssertEqual(try get("/healthz").status, 200)

        let reading = server.fanOut.read()
        let greetings = [1, 2].map { "welcome #\($0)".utf8.count + 2 }
        XCTAssertEqual(reading.written(.v1), .init(bytes: greetings[0] + 10 + 2, frames: 2))
        XCTAssertEqual(reading.written(.v2), .init(bytes: greetings[1] + 200 + 4, frames: 2), "a 200-byte payload has a 4-byte header")
        XCTAssertEqual(reading.total, 2, "one publish → write per connection")
    }

    func testAHandshakeWithoutTheSubprotocolIs400AndFromAForeignOriginIs403() throws {
        let plain = try upgrade(subprotocol: nil)
        XCTAssertEqual(plain.response.status, 400)
        XCTAssertTrue(plain.response.text.contains("gather.v1"), plain.response.text)

        let foreign = try upgrade(origin: "https://evil.example")
        XCTAssertEqual(foreign.response.status, 403)
        XCTAssertTrue(try foreign.client.isClosedByServer(before: foreign.client.deadline()))

        let sameOrigin = try upgrade(origin: "https://127.0.0.1:\(port)")
        XCTAssertEqual(sameOrigin.response.status, 101, "the control: the same request from the page's origin is let in")
        XCTAssertTrue(try sameOrigin.client.readText().hasPrefix("welcome #"))
        XCTAssertEqual(events.openedCount, 1, "refused handshakes are never reported as connections")
    }

    func testShutdownClosesOpenWebSocketsWith1001AndReportsEachCloseOnce() throws {
        let (client, id) = try openLive()
        let stopped = expectation(description: "shutdown returned")
        DispatchQueue.global().async { [server] in
            server!.shutdown()
            stopped.fulfill()
        }
        let close = try client.readFrame()
        XCTAssertEqual(close.opcode, WebSocketFrame.close)
        XCTAssertEqual(close.closeCode, 1001)
        try client.sendFrame(opcode: WebSocketFrame.close, payload: Array(close.payload.prefix(2)))
        XCTAssertTrue(try client.isClosedByServer(before: client.deadline()))
        wait(for: [stopped], timeout: 5)

        XCTAssertTrue(events.waitFor { $0.contains(.closed(id)) })
        events.drain()
        XCTAssertEqual(events.log.filter { $0 == .closed(id) }.count, 1, "\(events.log)")
        XCTAssertThrowsError(try connect(), "nothing listens after shutdown")
    }
}

// MARK: - A stand-in for the Coordinator

/// Records what the server reports and answers as the Coordinator would: a greeting to every
/// new connection, an echo of every message. Work goes to its own queue, as the protocol asks.
final class RecordingEvents: TransportSource, @unchecked Sendable {
    enum Event: Equatable {
        case opened(ConnectionID, remoteAddress: String)
        case closed(ConnectionID)
        case received(String, from: ConnectionID)
    }

    weak var server: LiveServer?
    private let queue = DispatchQueue(label: "test.coordinator")
    private let condition = NSCondition()
    private var recorded: [Event] = []

    var log: [Event] { condition.withLock { recorded } }

    var openedCount: Int {
        log.filter { if case .opened = $0 { true } else { false } }.count
    }

    static func greeting(for id: ConnectionID) -> String { "welcome #\(id.rawValue)" }

    static func connection(inGreeting text: String) -> ConnectionID? {
        guard text.hasPrefix("welcome #"), let number = UInt64(text.dropFirst("welcome #".count)) else { return nil }
        return ConnectionID(number)
    }

    func connectionOpened(_ id: ConnectionID, remoteAddress: String, protocol: WireProtocol, door: Door) {
        queue.async { [self] in
            record(.opened(id, remoteAddress: remoteAddress))
            server?.deliver([.greet(id, Array(Self.greeting(for: id).utf8))])
        }
    }

    func connectionClosed(_ id: ConnectionID) {
        queue.async { [self] in record(.closed(id)) }
    }

    func received(_ text: String, from id: ConnectionID) {
        queue.async { [self] in
            record(.received(text, from: id))
            server?.deliver([.send(id, Array("echo \(text)".utf8)), .handled(id)])
        }
    }

    private func record(_ event: Event) {
        condition.withLock {
            recorded.append(event)
            condition.broadcast()
        }
    }

    /// Waits (at most `timeout`) until the log satisfies `predicate`.
    func waitFor(timeout: TimeInterval = 5, _ predicate: ([Event]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(recorded) {
            guard condition.wait(until: deadline) else { return predicate(recorded) }
        }
        return true
    }

    /// Returns once every report handed over so far has been recorded.
    func drain() { queue.sync {} }
}
