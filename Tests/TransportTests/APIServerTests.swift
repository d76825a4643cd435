import Dispatch
import Foundation
import GatherCertificates
import GatherDelivery
import GatherTransport
import Logging
import XCTest

/// A club-shaped `LiveServer` on a free loopback port: the JSON API answered later from another
/// queue, its refusals, and a club.v1 WebSocket at `/club/live`. Then the venue's shape, to show
/// that leaving the API off changes nothing.
final class APIServerTests: XCTestCase {
    private var folder = ""
    private var caPath = ""
    private var certificates: CertificatePaths!
    private var server: LiveServer?
    private var port = 0
    private var plainPort = 0
    private var handler: DelayedAPIHandler!
    private var club: ClubEchoSource!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "api-server-\(UUID().uuidString)"
        let made = try CertificateAuthority.ensure(in: folder + "/certs",
                                                   identity: MachineIdentity(hostName: "club-host", ipAddresses: []))
        caPath = try XCTUnwrap(made.caCertificatePath)
        certificates = CertificatePaths(certificate: made.certificatePath, key: made.privateKeyPath)
        try FileManager.default.createDirectory(atPath: folder + "/Public", withIntermediateDirectories: true)
        try "<!doctype html><title>Club</title>\n".write(toFile: folder + "/Public/index.html", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        server?.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The club's shape: TLS and a plain port behind a proxy, the API, club.v1 at /club/live.
    private func startClub(timeoutSeconds: Int = 30, perAddress: Int = 16) throws {
        handler = DelayedAPIHandler()
        var configuration = TransportConfiguration(
            host: "127.0.0.1", tls: TLSListener(port: 0, certificatePath: certificates.certificate,
                                                privateKeyPath: certificates.key),
            spectatorPort: 0, protocols: [.club], publicDirectory: folder + "/Public", dynamicRoutes: { _ in nil })
        configuration.livePath = "/club/live"
        configuration.plainListener = .behindProxy
        configuration.api = APIRoutes(prefix: "/club/api/", maximumBodyBytes: 16_384, maximumPendingPerAddress: perAddress,
                                      timeoutSeconds: timeoutSeconds, handle: handler.handle)
        club = ClubEchoSource()
        let server = LiveServer(configuration: configuration, logger: Logger(label: "test.api"), source: club)
        club.server = server
        self.server = server
        let ports = try server.start()
        port = try XCTUnwrap(ports.tls)
        plainPort = try XCTUnwrap(ports.spectator)
    }

    private func connect() throws -> TLSTestClient { try TLSTestClient(port: port, caPath: caPath) }

    private static func request(_ method: String, _ path: String, body: String? = nil, port: Int,
                                extra: String = "") -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n" + extra
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        return text + "\r\n" + (body ?? "")
    }

    // MARK: - The API

    func testAPostedBodyIsHandedOverWithItsHeadersAndAnsweredLaterFromAnotherQueue() throws {
        try startClub()
        let client = try connect()
        let body = #"{"id":"a-1","answer":"in","name":"Zoë"}"#
        let response = try client.exchange(Self.request(
            "POST", "/club/api/echo?lang=es", body: body, port: port,
            extra: "Authorization: Bearer secret-token\r\nAccept-Language: es-ES\r\nX-Forwarded-Proto: https\r\n"
                + "X-Forwarded-For: 203.0.113.9\r\n"))
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.headers["content-type"], "application/json")
        XCTAssertEqual(response.headers["x-content-type-options"], "nosniff", "the API's answers carry the headers too")
        let seen = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String])
        XCTAssertEqual(seen["method"], "POST")
        XCTAssertEqual(seen["path"], "/club/api/echo")
        XCTAssertEqual(seen["query"], "lang=es")
        XCTAssertEqual(seen["body"], body)
        XCTAssertEqual(seen["authorization"], "Bearer secret-token")
        XCTAssertEqual(seen["accept-language"], "es-ES")
        XCTAssertEqual(seen["x-forwarded-proto"], "https")
        XCTAssertEqual(seen["x-forwarded-for"], "203.0.113.9")
        XCTAssertEqual(seen["host"], "127.0.0.1:\(port)")
        XCTAssertEqual(seen["content-type"], "application/json")

        // Kept alive: the next request on the same connection, with the other methods.
        for method in ["PATCH", "DELETE"] {
            let next = try client.exchange(Self.request(method, "/club/api/echo", body: #"{"id":"b"}"#, port: port))
            XCTAssertEqual(next.status, 200)
            let echoed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(next.body)) as? [String: String])
            XCTAssertEqual(echoed["method"], method)
            XCTAssertEqual(echoed["body"], #"{"id":"b"}"#)
        }
        let get = try client.exchange(Self.request("GET", "/club/api/echo", port: port))
        XCTAssertEqual(get.status, 200)
        XCTAssertTrue(get.text.contains(#""method":"GET""#), get.text)
        let emptyPost = try client.exchange(Self.request("POST", "/club/api/echo", body: "", port: port))
        XCTAssertEqual(emptyPost.status, 200, "a POST of an explicit 0 is handed over too")

        // A reply made before the handler returns is written too; the second call is ignored.
        let now = try client.exchange(Self.request("POST", "/club/api/now", body: "{}", port: port))
        XCTAssertEqual(now.status, 201)
        XCTAssertEqual(now.text, "{}")
        XCTAssertEqual(now.headers["location"], "/club/api/things/1")
        let after = try client.exchange(Self.request("GET", "/club/api/echo", port: port))
        XCTAssertEqual(after.status, 200, "the ignored second reply was not written to the next request")
    }

    func testThePlainPortBehindAProxyServesTheAPIToo() throws {
        try startClub()
        let client = try TLSTestClient(plainPort: plainPort)
        let response = try client.exchange(Self.request("POST", "/club/api/echo", body: #"{"id":"p"}"#, port: plainPort))
        XCTAssertEqual(response.status, 200, response.text)
    }

    func testABodyOverTheCapIs413AndNothingIsHandedOver() throws {
        try startClub()
        let big = #"{"id":"x","pad":""# + String(repeating: "a", count: 20_000) + #""}"#
        let response = try connect().exchange(Self.request("POST", "/club/api/echo", body: big, port: port))
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.headers["connection"], "close")

        // A declared length over the cap is refused before the body comes.
        let early = try connect()
        let answer = try early.exchange("POST /club/api/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n{")
        XCTAssertEqual(answer.status, 413)
        XCTAssertTrue(try early.isClosedByServer(before: early.deadline()))

        let noLength = try connect().exchange("POST /club/api/echo HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(noLength.status, 411)
        let chunked = try connect().exchange(
            "POST /club/api/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        XCTAssertEqual(chunked.status, 400)
        XCTAssertEqual(handler.handedOver, 0, "nothing reached the handler")
    }

    func testOtherMethodsOnThePrefixAre405WithAllow() throws {
        try startClub()
        for method in ["PUT", "OPTIONS"] {
            let response = try connect().exchange(Self.request(method, "/club/api/echo", body: "{}", port: port))
            XCTAssertEqual(response.status, 405, method)
            XCTAssertEqual(response.headers["allow"], "GET, POST, PATCH, DELETE")
        }
        // Outside the prefix the club's pages are GET only, as the venue's.
        let page = try connect().exchange(Self.request("POST", "/index.html", body: "{}", port: port))
        XCTAssertEqual(page.status, 405)
        XCTAssertEqual(page.headers["allow"], "GET")
        XCTAssertEqual(handler.handedOver, 0)
    }

    func testARequestNotAnsweredInTimeIs503AndItsLateReplyIsDropped() throws {
        try startClub(timeoutSeconds: 1)
        let started = Date()
        let client = try connect()
        let response = try client.exchange(Self.request("POST", "/club/api/silent", body: "{}", port: port))
        XCTAssertEqual(response.status, 503)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1)
        // The handler answers now, too late: dropped, and the connection serves its next request.
        XCTAssertTrue(handler.answerSilent(HTTPResponse(status: 200, contentType: "text/plain", body: Array("late".utf8))))
        let next = try client.exchange(Self.request("GET", "/club/api/echo", port: port))
        XCTAssertEqual(next.status, 200, "the late reply was not written in place of this one")
        XCTAssertTrue(next.text.contains(#""method":"GET""#), next.text)
    }

    func testMoreUnansweredRequestsFromOneAddressThanAllowedAre429() throws {
        try startClub(perAddress: 2)
        let waiting = try (0..<2).map { _ in
            let client = try connect()
            try client.write(Self.request("GET", "/club/api/silent", port: port))
            return client
        }
        XCTAssertTrue(handler.waitForHandedOver(2))
        let refused = try connect().exchange(Self.request("GET", "/club/api/echo", port: port))
        XCTAssertEqual(refused.status, 429)
        // Once they are answered, their places are free again.
        for _ in 0..<2 {
            XCTAssertTrue(handler.answerSilent(HTTPResponse(status: 200, contentType: "text/plain", body: Array("ok".utf8))))
        }
        for client in waiting {
            let answer = try client.exchange("")
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.text, "ok")
        }
        let admitted = try connect().exchange(Self.request("GET", "/club/api/echo", port: port))
        XCTAssertEqual(admitted.status, 200)
    }

    /// A client that hangs up frees its place at once; the reply made for it later is dropped
    /// (the request is gone), and never written to another connection.
    func testAClientThatHangsUpFreesItsPlaceAndItsLateReplyIsDropped() throws {
        try startClub(perAddress: 1)
        do {
            let client = try connect()
            try client.write(Self.request("GET", "/club/api/silent", port: port))
            XCTAssertTrue(handler.waitForHandedOver(1))
        }  // the client hangs up here
        var status = 429
        // Noticed within the once-a-second upkeep, long before the 30 s timeout.
        for _ in 0..<60 where status == 429 {
            Thread.sleep(forTimeInterval: 0.05)
            status = try connect().exchange(Self.request("GET", "/club/api/echo", port: port)).status
        }
        XCTAssertEqual(status, 200, "the hung-up request no longer counts against its address")
        let next = try connect()
        try next.write(Self.request("GET", "/club/api/silent", port: port))
        XCTAssertTrue(handler.waitForHandedOver(3))
        XCTAssertTrue(handler.answerSilent(HTTPResponse(status: 200, contentType: "text/plain", body: Array("stale".utf8))),
                      "the reply to the request whose client hung up")
        XCTAssertTrue(handler.answerSilent(HTTPResponse(status: 200, contentType: "text/plain", body: Array("fresh".utf8))))
        XCTAssertEqual(try next.exchange("").text, "fresh")
    }

    /// A shutdown answers what is still unanswered (503) and stops at once, as with WebSockets.
    func testAShutdownAnswersUnansweredRequestsAndStopsPromptly() throws {
        try startClub()
        let client = try connect()
        try client.write(Self.request("GET", "/club/api/silent", port: port))
        XCTAssertTrue(handler.waitForHandedOver(1))
        let started = Date()
        server?.shutdown()
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "stopped without waiting out its 5 s")
        let answer = try client.exchange("")
        XCTAssertEqual(answer.status, 503)
    }

    /// Replies that arrive just before, during or after the client hangs up are written or
    /// dropped, never to a connection that is gone; the server keeps serving.
    func testRepliesAfterTheClientHungUpAreDroppedSafely() throws {
        try startClub()
        for round in 0..<30 {
            let client = try connect()
            try client.write(Self.request("POST", "/club/api/late?ms=\(round % 6)", body: #"{"n":\#(round)}"#, port: port))
            XCTAssertTrue(handler.waitForHandedOver(round + 1), "round \(round)")
            // The client goes away (no close_notify) while the reply is on its way.
        }
        XCTAssertTrue(handler.waitForReplied(30), "every late reply was sent by the handler")
        Thread.sleep(forTimeInterval: 0.1)
        let still = try connect().exchange(Self.request("GET", "/club/api/echo", port: port))
        XCTAssertEqual(still.status, 200, "the server is alive and answering")
    }

    // MARK: - The club's WebSocket

    func testAClubConnectionOnClubLiveExchangesMessagesWithItsSourceAndGetsNothingShared() throws {
        try startClub()
        // A venue snapshot published to every connection: a club.v1 one must not get it.
        server?.deliver([.publishState(StateFrames(version: 1, v1Snapshot: Array("v1".utf8), v2Snapshot: Array("v2".utf8),
                                                   v2Patch: nil))])
        let client = try connect()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let handshake = try client.exchange(
            "GET /club/live HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: club.v1\r\n"
                + "Origin: https://127.0.0.1:\(port)\r\n\r\n")
        XCTAssertEqual(handshake.status, 101)
        XCTAssertEqual(handshake.headers["sec-websocket-protocol"], "club.v1")
        XCTAssertTrue(club.waitForOpened(), "the source was told, with club.v1")

        try client.sendText(#"{"type":"follow","member":"abc"}"#)
        XCTAssertEqual(try client.readText(), #"echo {"type":"follow","member":"abc"}"#, "the first frame is the reply")
        try client.sendText("second")
        XCTAssertEqual(try client.readText(), "echo second")

        // The venue's protocols and path are not the club's.
        let venueOffer = try connect().exchange(
            "GET /club/live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: gather.v1\r\n\r\n")
        XCTAssertEqual(venueOffer.status, 400)
        XCTAssertTrue(venueOffer.text.contains("/club/live with the club.v1 subprotocol"), venueOffer.text)
        let oldPath = try connect().exchange(
            "GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: club.v1\r\n\r\n")
        XCTAssertEqual(oldPath.status, 404)
    }

    func testTheClubsWebSocketBehindAProxyTakesTheBrowsersSchemeFromTheProxy() throws {
        try startClub()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        func handshake(forwardedProto: String?) throws -> Int {
            let proto = forwardedProto.map { "X-Forwarded-Proto: \($0)\r\n" } ?? ""
            return try TLSTestClient(plainPort: plainPort).exchange(
                "GET /club/live HTTP/1.1\r\nHost: club.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: club.v1\r\n"
                    + "Origin: https://club.example\r\n" + proto + "\r\n").status
        }
        XCTAssertEqual(try handshake(forwardedProto: "https"), 101)
        XCTAssertEqual(try handshake(forwardedProto: nil), 403, "without the proxy's word the origin is foreign")
    }

    // MARK: - The venue: nothing changes without an API

    func testTheVenuesConfigurationStillAnswersAPostWith405() throws {
        let events = RecordingEvents()
        let venue = LiveServer(
            configuration: TransportConfiguration(host: "127.0.0.1", port: 0, certificatePath: certificates.certificate,
                                                  privateKeyPath: certificates.key, publicDirectory: folder + "/Public",
                                                  dynamicRoutes: { _ in nil }),
            logger: Logger(label: "test.venue"), source: events)
        events.server = venue
        server = venue
        port = try XCTUnwrap(venue.start().tls)
        for path in ["/club/api/echo", "/api/anything", "/"] {
            let client = try connect()
            let response = try client.exchange(Self.request("POST", path, body: #"{"id":"a"}"#, port: port))
            XCTAssertEqual(response.status, 405, path)
            XCTAssertEqual(response.headers["allow"], "GET")
            // Kept alive as before: the body was discarded and the next request is served.
            XCTAssertEqual(try client.exchange(Self.request("GET", "/", port: port)).status, 200)
        }
        let live = try connect().exchange(Self.request("GET", "/live", port: port))
        XCTAssertEqual(live.status, 426)
        XCTAssertTrue(live.text.contains("Open /live as a WebSocket"), live.text)
    }
}

private struct CertificatePaths {
    var certificate: String
    var key: String
}
