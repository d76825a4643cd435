import GatherDelivery
@testable import GatherTransport
import XCTest

/// The API's rules without sockets: which requests are read, the caps, and that a reply finds
/// its request only while the request is still waiting for it.
final class APIRequestBookTests: XCTestCase {
    private typealias Book = APIRequestBook<Int>

    private func routes(bodyBytes: Int = 16, perAddress: Int = 2, pending: Int = 3, timeout: Int = 1) -> APIRoutes {
        APIRoutes(prefix: "/club/api/", maximumBodyBytes: bodyBytes, maximumPendingPerAddress: perAddress,
                  maximumPending: pending, timeoutSeconds: timeout) { _, _ in }
    }

    private func request(from address: String = "10.0.0.1", method: String = "POST") -> HTTPRequest {
        HTTPRequest(method: method, path: "/club/api/x", query: nil, remoteAddress: address, door: .tls,
                    headers: ["authorization": "Bearer t"])
    }

    private func feed(_ book: inout Book, _ text: String, to handle: Int) -> Book.BodyStep {
        Array(text.utf8).withUnsafeBytes { book.received($0, for: handle) }
    }

    private static let second: UInt64 = 1_000_000_000

    // MARK: Judging the headers

    func testABodyMustDeclareItsLengthWithinTheCap() {
        func judge(_ method: String, _ length: String?, te: String? = nil) -> Book.Judgement {
            Book.judge(method: method, contentLength: length, transferEncoding: te, maximumBodyBytes: 100)
        }
        XCTAssertEqual(judge("POST", "100"), .readBody(expectedBytes: 100))
        XCTAssertEqual(judge("PATCH", "5"), .readBody(expectedBytes: 5))
        XCTAssertEqual(judge("POST", "0"), .readBody(expectedBytes: 0), "lws calls back even for a POST of 0")
        XCTAssertEqual(judge("PATCH", "0"), .handOverNow)
        XCTAssertEqual(judge("GET", nil), .handOverNow)
        XCTAssertEqual(judge("DELETE", nil), .handOverNow)
        XCTAssertEqual(judge("DELETE", "12"), .readBody(expectedBytes: 12))
        guard case .refuse(413, _) = judge("POST", "101") else { return XCTFail("over the cap: 413") }
        guard case .refuse(413, _) = judge("POST", "999999999999999999") else { return XCTFail("far over: 413") }
        guard case .refuse(411, _) = judge("POST", nil) else { return XCTFail("no length: 411") }
        guard case .refuse(411, _) = judge("PATCH", nil) else { return XCTFail("no length: 411") }
        for bad in ["", "-1", "+5", "1e3", " 5", "0x10", "5 ", "1234567890123456789"] {
            guard case .refuse(400, _) = judge("POST", bad) else { return XCTFail("\(bad.debugDescription): 400") }
        }
        guard case .refuse(400, _) = judge("POST", "5", te: "chunked") else { return XCTFail("chunked: 400") }
        guard case .refuse(400, _) = judge("GET", nil, te: "chunked") else { return XCTFail("chunked: 400") }
    }

    // MARK: The body

    func testTheBodyIsReadWholeAndHandedOverWithTheHeaders() {
        var book = Book(routes())
        XCTAssertEqual(book.admit(7, request: request(), expectedBytes: 11), .admitted(serial: 1))
        XCTAssertEqual(feed(&book, "{\"id\":", to: 7), .keepReading)
        XCTAssertEqual(feed(&book, "\"a\"}", to: 7), .keepReading)
        let handed = book.handOver(7, now: 0)
        XCTAssertEqual(handed?.serial, 1)
        XCTAssertEqual(handed.map { String(decoding: $0.request.body, as: UTF8.self) }, "{\"id\":\"a\"}")
        XCTAssertEqual(handed?.request.header("Authorization"), "Bearer t")
        XCTAssertNil(book.handOver(7, now: 0), "handed over once")
        XCTAssertEqual(feed(&book, "more", to: 7), .notOurs, "nothing is read after the hand-over")
    }

    func testABodyOverTheCapOrOverItsDeclaredLengthIsRefusedAndForgotten() {
        var book = Book(routes(bodyBytes: 16))
        _ = book.admit(1, request: request(), expectedBytes: 16)
        XCTAssertEqual(feed(&book, "0123456789", to: 1), .keepReading)
        XCTAssertEqual(feed(&book, "0123456789", to: 1), .tooLarge)
        XCTAssertNil(book.handOver(1, now: 0), "nothing handed over")
        XCTAssertEqual(book.pendingCount(from: "10.0.0.1"), 0)

        _ = book.admit(2, request: request(), expectedBytes: 4)
        XCTAssertEqual(feed(&book, "12345", to: 2), .tooLarge, "more than declared")
        XCTAssertEqual(feed(&book, "x", to: 99), .notOurs, "a request that is not the API's")
    }

    // MARK: Caps

    func testPendingRequestsAreCappedPerAddressAndInAll() {
        var book = Book(routes(perAddress: 2, pending: 3))
        XCTAssertEqual(book.admit(1, request: request(from: "a"), expectedBytes: 0), .admitted(serial: 1))
        XCTAssertEqual(book.admit(2, request: request(from: "a"), expectedBytes: 0), .admitted(serial: 2))
        XCTAssertEqual(book.admit(3, request: request(from: "a"), expectedBytes: 0), .addressFull)
        XCTAssertEqual(book.admit(4, request: request(from: "b"), expectedBytes: 0), .admitted(serial: 3))
        XCTAssertEqual(book.admit(5, request: request(from: "c"), expectedBytes: 0), .serverFull)

        // An answer frees its address's place.
        _ = book.handOver(1, now: 0)
        XCTAssertNotNil(book.answer(1))
        XCTAssertEqual(book.pendingCount(from: "a"), 1)
        XCTAssertEqual(book.admit(3, request: request(from: "a"), expectedBytes: 0), .admitted(serial: 4))
        // So does a close.
        book.closed(2)
        book.closed(3)
        XCTAssertEqual(book.pendingCount(from: "a"), 0)
    }

    // MARK: Replies

    func testAReplyFindsItsConnectionOnceAndNeverAfterItClosed() {
        var book = Book(routes())
        _ = book.admit(10, request: request(), expectedBytes: 0)
        XCTAssertNil(book.answer(1), "not handed over yet: no reply can be for it")
        _ = book.handOver(10, now: 0)
        XCTAssertEqual(book.answer(1)?.handle, 10)
        XCTAssertNil(book.answer(1), "a second reply is dropped")

        _ = book.admit(10, request: request(), expectedBytes: 0)  // the next request on the same connection
        _ = book.handOver(10, now: 0)
        book.closed(10)
        XCTAssertNil(book.answer(2), "the client hung up: the reply is dropped")
        XCTAssertNil(book.answer(999), "an unknown serial")
    }

    func testARequestUnansweredPastTheTimeoutExpiresOnceAndItsLateReplyIsDropped() {
        var book = Book(routes(timeout: 1))
        _ = book.admit(1, request: request(), expectedBytes: 0)
        _ = book.admit(2, request: request(from: "b"), expectedBytes: 4)  // still reading: no timeout of ours
        _ = book.handOver(1, now: 5 * Self.second)
        XCTAssertTrue(book.expire(now: 6 * Self.second).isEmpty, "exactly the timeout is not past it")
        let expired = book.expire(now: 6 * Self.second + 1)
        XCTAssertEqual(expired.map(\.handle), [1])
        XCTAssertTrue(book.expire(now: 60 * Self.second).isEmpty, "once")
        XCTAssertNil(book.answer(1), "the late reply finds nothing")
        XCTAssertEqual(book.pending.count, 1)
    }

    // MARK: The reply handle

    func testAReplyHandleIsOneShot() {
        let reply = APIReply(serial: 1, server: nil)
        XCTAssertFalse(reply.isUsed)
        XCTAssertTrue(reply.send(HTTPResponse(status: 200, contentType: "application/json", body: [])))
        XCTAssertTrue(reply.isUsed)
        XCTAssertFalse(reply(HTTPResponse(status: 500, contentType: "text/plain", body: [])), "a second call is ignored")
    }

    func testAResponseHeaderThatWouldBreakTheHeadIsLeftOut() {
        XCTAssertTrue(HTTPResponder.isSafeHeader(name: "Location", value: "/club/api/m/Zoë"))
        XCTAssertFalse(HTTPResponder.isSafeHeader(name: "Location", value: "/x\r\nSet-Cookie: a=b"))
        XCTAssertFalse(HTTPResponder.isSafeHeader(name: "Location", value: "/x\u{0}"))
        XCTAssertFalse(HTTPResponder.isSafeHeader(name: "X-A: b", value: "c"))
        XCTAssertFalse(HTTPResponder.isSafeHeader(name: "", value: "c"))
    }

    // MARK: Configuration

    func testAConfigurationWithAnAPIOrALivePathThatCannotWorkIsRefused() {
        func problem(_ change: (inout TransportConfiguration) -> Void) -> String? {
            var configuration = TransportConfiguration(host: "127.0.0.1", tls: nil, spectatorPort: 0, protocols: [.club],
                                                       publicDirectory: "/tmp", dynamicRoutes: { _ in nil })
            configuration.livePath = "/club/live"
            configuration.api = routes()
            change(&configuration)
            return configuration.problem
        }
        XCTAssertNil(problem { _ in })
        XCTAssertNotNil(problem { $0.livePath = "club/live" })
        XCTAssertNotNil(problem { $0.livePath = "/club/api/live" }, "inside the API")
        XCTAssertNotNil(problem { $0.api?.prefix = "/club/api" })
        XCTAssertNotNil(problem { $0.api?.maximumBodyBytes = 0 })
        XCTAssertNotNil(problem { $0.api?.maximumPendingPerAddress = 0 })
        XCTAssertNotNil(problem { $0.api?.timeoutSeconds = 0 })
        XCTAssertNotNil(problem { $0.api?.timeoutSeconds = 301 })
    }
}

/// A club.v1 connection: no greeting needed, nothing shared, only its direct replies.
final class ClubOutboxTests: XCTestCase {
    private func frame(_ text: String) -> SharedFrame { SharedFrame(Array(text.utf8)) }

    func testAClubConnectionIsSentItsRepliesAndNothingShared() {
        var outbox = Outbox(replyLimit: 2, followsShared: false)
        var shared = SharedFrames()
        shared.publish(SharedState(version: 1, v1Snapshot: frame("snapshot"), v2Snapshot: frame("v2")), patch: nil)
        shared.ticks[1] = (1, frame("tick"))
        shared.presence = (1, frame("presence"))
        XCTAssertFalse(outbox.hasPending(shared), "nothing shared waits for it")
        XCTAssertTrue(outbox.enqueue(frame("following")))
        outbox.greet(frame("hello"), shared: shared)  // a greeting is only a reply in order
        XCTAssertFalse(outbox.enqueue(frame("over the limit")), "the reply queue stays bounded")
        var sent: [String] = []
        while outbox.hasPending(shared), case .frame(let next) = outbox.next(shared) {
            sent.append(String(decoding: next.bytes, as: UTF8.self))
        }
        XCTAssertEqual(sent, ["following", "hello"])
        XCTAssertEqual(outbox.next(shared), .nothing)
    }

    func testTheOriginBehindAProxyIsReadWithTheProxysScheme() {
        XCTAssertTrue(HandshakeRules.originAllowed(origin: "https://club.example", host: "club.example", door: .spectator,
                                                   forwardedProto: "https"))
        XCTAssertFalse(HandshakeRules.originAllowed(origin: "https://club.example", host: "club.example", door: .spectator),
                       "without the proxy's word the plain port means port 80")
        XCTAssertFalse(HandshakeRules.originAllowed(origin: "https://evil.example", host: "club.example", door: .spectator,
                                                    forwardedProto: "https"))
        XCTAssertTrue(HandshakeRules.originAllowed(origin: "http://club.example", host: "club.example", door: .spectator,
                                                   forwardedProto: "http"))
    }
}
