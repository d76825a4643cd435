import GatherDelivery
@testable import GatherTransport
import XCTest

/// One connection's logic without a socket: what each event makes the lws layer do.
final class ConnectionMachineTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000
    private var address = TokenBucket(capacity: 400, ratePerSecond: 100, now: 0)

    private func machine(_ wire: WireProtocol = .v2, limits: MessageLimits = MessageLimits(), replyLimit: Int = 4)
        -> ConnectionMachine {
        ConnectionMachine(wire: wire, door: .tls, remoteAddress: "192.0.2.7", replyLimit: replyLimit,
                          pingIntervalSeconds: 30, limits: limits, now: second)
    }

    private func frame(_ text: String) -> SharedFrame { SharedFrame(Array(text.utf8)) }

    private func feed(_ machine: inout ConnectionMachine, _ text: String, first: Bool = true, last: Bool = true,
                      binary: Bool = false, maximumBytes: Int = 65_536) -> ConnectionMachine.FragmentStep {
        Array(text.utf8).withUnsafeBytes {
            machine.received($0, .init(isBinary: binary, isFirst: first, isLast: last), maximumBytes: maximumBytes)
        }
    }

    private func finish(_ machine: inout ConnectionMachine, isTLS: Bool = true) -> ConnectionMachine.MessageStep {
        machine.finishMessage(address: &address, limits: MessageLimits(), isTLS: isTLS, version: 9, now: 2 * second)
    }

    private func texts(_ step: ConnectionMachine.WriteStep) -> [String] {
        switch step {
        case .frame(let frame): [String(decoding: frame.bytes, as: UTF8.self)]
        case .frames(let frames): frames.map { String(decoding: $0.bytes, as: UTF8.self) }
        default: []
        }
    }

    // MARK: Receiving

    func testFragmentsAreReassembledIntoOneMessageForTheSource() {
        var connection = machine()
        XCTAssertEqual(feed(&connection, #"{"type":"#, last: false), .awaitMore)
        XCTAssertEqual(feed(&connection, #""hello"}"#, first: false), .messageComplete)
        XCTAssertEqual(finish(&connection), .deliver(#"{"type":"hello"}"#, pauseReading: false))
        XCTAssertTrue(connection.incoming.isEmpty, "the partial buffer is empty once the message is judged")
    }

    func testBinaryOversizedAndInvalidMessagesCloseWithTheirCodes() {
        var binary = machine()
        XCTAssertEqual(feed(&binary, "x", binary: true),
                       .close(.init(code: 1003, reason: "the gather protocols speak text frames only")))
        var big = machine()
        XCTAssertEqual(feed(&big, String(repeating: "a", count: 10), last: false, maximumBytes: 16), .awaitMore)
        XCTAssertEqual(feed(&big, String(repeating: "a", count: 7), first: false, maximumBytes: 16),
                       .close(.init(code: 1009, reason: "messages are limited to 0 KiB")))
        XCTAssertTrue(big.incoming.isEmpty)
        var invalid = machine()
        let bytes: [UInt8] = [0x22, 0xFF, 0x22]
        _ = bytes.withUnsafeBytes { invalid.received($0, .init(isBinary: false, isFirst: true, isLast: true), maximumBytes: 100) }
        XCTAssertEqual(finish(&invalid), .close(.init(code: 1007, reason: "text frames must be valid UTF-8")))
    }

    func testAFirstFragmentDropsAnAbandonedPartialMessage() {
        var connection = machine()
        _ = feed(&connection, "abandoned", last: false)
        XCTAssertEqual(feed(&connection, #"{"type":"x"}"#), .messageComplete)
        XCTAssertEqual(finish(&connection), .deliver(#"{"type":"x"}"#, pauseReading: false))
    }

    func testTooDeepIsAnsweredHereAndTheSourceNeverSeesIt() {
        var connection = machine()
        _ = feed(&connection, String(repeating: "[", count: 70))
        XCTAssertEqual(finish(&connection), .answered)
        connection.greet(frame("welcome"), shared: SharedFrames())
        let written = texts(connection.writable(SharedFrames()))
        XCTAssertEqual(written.count, 2)
        XCTAssertTrue(written[1].contains(#""code":"bad_json""#), written[1])
    }

    func testOnTheSpectatorDoorAFullBacklogPausesReadingUntilHandled() {
        var connection = machine()
        var steps: [ConnectionMachine.MessageStep] = []
        for index in 0..<8 {
            _ = feed(&connection, #"{"type":"m\#(index)"}"#)
            steps.append(finish(&connection, isTLS: false))
        }
        XCTAssertEqual(steps.last, .deliver(#"{"type":"m7"}"#, pauseReading: true), "the 8th waiting message pauses reading")
        XCTAssertEqual(steps.dropLast().filter { $0 == .answered }.count, 0)
        XCTAssertTrue(connection.handled(limits: MessageLimits()), "one handled: reading resumes")
    }

    func testOnTLSAFullBacklogIsRefusedRateLimitedInstead() {
        var limits = MessageLimits()
        limits.tlsWaitingMessages = 1
        var connection = ConnectionMachine(wire: .v2, door: .tls, remoteAddress: "x", replyLimit: 4, pingIntervalSeconds: 30,
                                           limits: limits, now: second)
        _ = feed(&connection, #"{"type":"command","id":"c-1"}"#)
        XCTAssertEqual(connection.finishMessage(address: &address, limits: limits, isTLS: true, version: 9, now: 2 * second),
                       .deliver(#"{"type":"command","id":"c-1"}"#, pauseReading: false))
        _ = feed(&connection, #"{"type":"command","id":"c-2"}"#)
        XCTAssertEqual(connection.finishMessage(address: &address, limits: limits, isTLS: true, version: 9, now: 2 * second),
                       .answered)
        connection.greet(frame("welcome"), shared: SharedFrames())
        let written = texts(connection.writable(SharedFrames()))
        XCTAssertTrue(written.last?.contains(#""id":"c-2""#) == true && written.last?.contains("rate_limited") == true,
                      "\(written)")
    }

    // MARK: Sending

    func testAClosePrecedesEverythingAndAPingPrecedesFrames() {
        var connection = machine()
        var shared = SharedFrames()
        shared.publish(SharedState(version: 1, v1Snapshot: frame("v1"), v2Snapshot: frame("v2 snapshot 1")), patch: nil)
        connection.greet(frame("welcome"), shared: shared)
        XCTAssertEqual(connection.upkeep(now: 40 * second, shared: shared, stallLimit: 30 * second), .ping)
        XCTAssertEqual(connection.writable(shared), .ping)
        XCTAssertTrue(connection.wantsWritable(shared), "the greeting still waits")
        XCTAssertEqual(texts(connection.writable(shared)), ["welcome", "v2 snapshot 1"], "waiting frames go in one write")
        XCTAssertEqual(connection.writable(shared), .nothing)
        connection.close(.init(code: 1001, reason: "the server is shutting down"))
        XCTAssertEqual(connection.writable(shared), .close(.init(code: 1001, reason: "the server is shutting down")))
    }

    func testOneWriteStopsAddingFramesPast32KiB() {
        var connection = machine()
        connection.greet(frame("welcome"), shared: SharedFrames())
        let large = String(repeating: "x", count: 20_000)
        for _ in 0..<3 { connection.reply(frame(large)) }
        XCTAssertEqual(texts(connection.writable(SharedFrames())).count, 3, "welcome + 2 × 20 KB passes 32 KiB")
        XCTAssertEqual(texts(connection.writable(SharedFrames())).count, 1)
    }

    /// The fan-out writes frames outside the turn (one frame, no array), leaves a ping or a close
    /// to the turn, and learns from the same call whether the write reached the newest version
    /// and whether another turn is wanted.
    func testTheFanOutWritesOnlyFramesAndLearnsWhatFollowsFromTheWriteItself() {
        var connection = machine()  // opened at 1 s
        var shared = SharedFrames()
        XCTAssertEqual(connection.fanOutDemand(shared), .nothing)
        shared.publish(SharedState(version: 1, v1Snapshot: frame("v1"), v2Snapshot: frame("v2 snapshot 1")), patch: nil)
        connection.greet(frame("welcome"), shared: shared)
        XCTAssertEqual(connection.fanOutDemand(shared), .frames)
        let greeting = connection.write(shared, publishedAt: 0)
        XCTAssertEqual(texts(greeting.step), ["welcome", "v2 snapshot 1"])
        XCTAssertEqual(greeting.reachesNewestVersion, false, "published before it opened: a catch-up, not the fan-out")
        XCTAssertEqual(greeting.wantsAnotherTurn, false)
        XCTAssertEqual(connection.fanOutDemand(shared), .nothing)

        let patch = frame("patch 1→2")
        shared.publish(SharedState(version: 2, v1Snapshot: frame("v1"), v2Snapshot: frame("v2 snapshot 2")), patch: patch)
        connection.reply(frame("ack 2"))
        XCTAssertEqual(connection.fanOutDemand(shared), .frames)
        let patchAndAck = connection.write(shared, publishedAt: 3 * second)
        guard case .frames(let both) = patchAndAck.step else { return XCTFail("the patch and the ack go in one write") }
        XCTAssertTrue(both[0] === patch)
        XCTAssertEqual(patchAndAck.reachesNewestVersion, true)
        XCTAssertEqual(patchAndAck.wantsAnotherTurn, false)

        shared.publish(SharedState(version: 3, v1Snapshot: frame("v1"), v2Snapshot: frame("v2 snapshot 3")),
                       patch: frame("patch 2→3"))
        let lonePatch = connection.write(shared, publishedAt: 4 * second)
        guard case .frame(let only) = lonePatch.step else { return XCTFail("a lone patch is one frame, not an array") }
        XCTAssertEqual(String(decoding: only.bytes, as: UTF8.self), "patch 2→3")
        XCTAssertEqual(lonePatch, ConnectionMachine.Write(step: .frame(only), reachesNewestVersion: true, wantsAnotherTurn: false))

        XCTAssertEqual(connection.upkeep(now: 40 * second, shared: shared, stallLimit: 30 * second), .ping)
        XCTAssertEqual(connection.fanOutDemand(shared), .turn, "a ping is written in lws's turn")
        XCTAssertEqual(connection.write(shared, publishedAt: 4 * second),
                       ConnectionMachine.Write(step: .ping, reachesNewestVersion: false, wantsAnotherTurn: false))
        connection.close(.init(code: 1001, reason: "the server is shutting down"))
        XCTAssertEqual(connection.fanOutDemand(shared), .turn, "so is a close")
    }

    func testTooManyRepliesWaitingSetsTheConnectionToClose() {
        var connection = machine(replyLimit: 2)
        for index in 0..<3 { connection.reply(frame("r\(index)")) }
        XCTAssertEqual(connection.closing, .init(code: 1008, reason: "too many replies waiting"))
        connection.close(.init(code: 1009, reason: "later"), replacing: false)
        XCTAssertEqual(connection.closing?.code, 1008, "a close already set is kept")
    }

    // MARK: Once a second

    func testAReaderThatMakesNoProgressIsDroppedAfterTheStallLimit() {
        var connection = machine()
        connection.greet(frame("welcome"), shared: SharedFrames())
        let limit = 30 * second
        XCTAssertEqual(connection.upkeep(now: 2 * second, shared: SharedFrames(), stallLimit: limit), .none, "the clock starts")
        connection.heard(at: 30 * second)
        XCTAssertEqual(connection.upkeep(now: 32 * second, shared: SharedFrames(), stallLimit: limit), .none)
        XCTAssertEqual(connection.upkeep(now: 33 * second, shared: SharedFrames(), stallLimit: limit), .dropStalled)
        _ = connection.writable(SharedFrames())
        XCTAssertEqual(connection.upkeep(now: 34 * second, shared: SharedFrames(), stallLimit: limit), .none,
                       "a writable turn is progress")
    }

    func testAnUnansweredPingDropsTheConnection() {
        var connection = machine()
        XCTAssertEqual(connection.upkeep(now: 31 * second, shared: SharedFrames(), stallLimit: 30 * second), .ping)
        _ = connection.writable(SharedFrames())
        XCTAssertEqual(connection.upkeep(now: 60 * second, shared: SharedFrames(), stallLimit: 30 * second), .none)
        XCTAssertEqual(connection.upkeep(now: 61 * second, shared: SharedFrames(), stallLimit: 30 * second), .dropSilent)
    }

    func testAGatherV1ConnectionKeepsNoResumePoint() {
        let v1 = ConnectionMachine(wire: .v1, door: .spectator, remoteAddress: "x", resume: ResumePoint(epoch: "abcdefgh", version: 1),
                                   replyLimit: 1, pingIntervalSeconds: 30, limits: MessageLimits(), now: 0)
        XCTAssertNil(v1.resume)
    }
}

/// Who may connect, counted without sockets (keys stand in for lws's `wsi`).
final class AdmissionTests: XCTestCase {
    private func admission() -> Admission<Int> {
        Admission(maximumPendingPerAddress: 2, maximumConnections: 3, maximumConnectionsPerAddress: 2)
    }

    func testPendingConnectionsPerAddressAreCappedAtAcceptAndWebSocketsDoNotCount() {
        var rules = admission()
        XCTAssertTrue(rules.admitAtAccept(from: "a"))
        rules.accepted(1, from: "a", at: 0)
        rules.accepted(2, from: "a", at: 0)
        XCTAssertFalse(rules.admitAtAccept(from: "a"))
        XCTAssertTrue(rules.refusalWorthLogging, "the first refusal is logged")
        XCTAssertTrue(rules.admitAtAccept(from: "b"), "other addresses are not affected")
        rules.webSocketOpened(from: "a")
        XCTAssertTrue(rules.admitAtAccept(from: "a"), "a WebSocket is counted under its own cap")
        rules.destroyed(2)
        rules.destroyed(2)
        XCTAssertEqual(rules.tcpConnectionsByAddress["a"], 1, "destroyed once, counted once")
    }

    func testWebSocketsAreCappedPerAddressAndInAllAndNoneWhileDraining() {
        var rules = admission()
        XCTAssertEqual(rules.judgeHandshake(from: "a", draining: true), .serverFull)
        rules.webSocketOpened(from: "a")
        rules.webSocketOpened(from: "a")
        XCTAssertEqual(rules.judgeHandshake(from: "a", draining: false), .addressFull)
        rules.webSocketOpened(from: "b")
        XCTAssertEqual(rules.judgeHandshake(from: "c", draining: false), .serverFull)
        XCTAssertEqual(rules.webSocketClosed(from: "a"), 1)
        XCTAssertEqual(rules.judgeHandshake(from: "a", draining: false), .admit)
        XCTAssertEqual(rules.webSocketClosed(from: "a"), 0)
        XCTAssertFalse(rules.hasWebSockets(from: "a"))
    }

    func testHeadersThatDoNotArriveWithinFiveSecondsAreOverdueOnce() {
        var rules = admission()
        let second: UInt64 = 1_000_000_000
        rules.accepted(1, from: "a", at: second)
        rules.accepted(2, from: "a", at: second)
        rules.headersArrived(2)
        XCTAssertEqual(rules.overdueHeaders(now: 5 * second), [])
        XCTAssertEqual(rules.overdueHeaders(now: 6 * second), [1])
        XCTAssertEqual(rules.overdueHeaders(now: 7 * second), [], "forgotten once reported")
    }
}

/// What plain HTTP answers before any file or route is looked at.
final class HTTPRouteTests: XCTestCase {
    func testTheRouteOfARequest() {
        XCTAssertEqual(HTTPResponder.route(method: nil, path: nil, door: .tls, tlsPort: 8443), .onlyGet)
        XCTAssertEqual(HTTPResponder.route(method: "POST", path: "/healthz", door: .tls, tlsPort: 8443), .onlyGet)
        XCTAssertEqual(HTTPResponder.route(method: "GET", path: "/live", door: .spectator, tlsPort: 8443), .upgradeRequired)
        XCTAssertEqual(HTTPResponder.route(method: "GET", path: "/organiser.html", door: .tls, tlsPort: 8443),
                       .serve(path: "/organiser.html"))
        XCTAssertEqual(HTTPResponder.route(method: "GET", path: "/organiser.html", door: .spectator, tlsPort: 8443),
                       .redirectToTLS(path: "/organiser.html"))
        XCTAssertEqual(HTTPResponder.route(method: "GET", path: "/organiser.html", door: .spectator, tlsPort: 0),
                       .notFound("Organisers use the venue's own address."))
        XCTAssertEqual(HTTPResponder.route(method: "GET", path: "/secret", door: .spectator, tlsPort: 8443),
                       .notFound("Nothing here for spectators."))
        XCTAssertEqual(HTTPResponder.route(method: "GET", path: "/js/live.js", door: .spectator, tlsPort: 8443),
                       .serve(path: "/js/live.js"))
    }

    /// Without an API (the venue, a relay) every method but GET is 405, under any path.
    func testWithoutAnAPIOnlyGetIsServed() {
        for method in ["POST", "PATCH", "DELETE", "PUT", "OPTIONS", "HEAD"] {
            XCTAssertEqual(HTTPResponder.route(method: method, path: "/club/api/x", door: .tls, tlsPort: 8443), .onlyGet, method)
        }
        XCTAssertEqual(HTTPResponder.route(method: "GET", path: "/club/api/x", door: .tls, tlsPort: 8443),
                       .serve(path: "/club/api/x"))
    }

    private func club(_ method: String, _ path: String, door: Door = .tls,
                      plainListener: PlainListenerRole = .behindProxy) -> HTTPResponder.Route {
        HTTPResponder.route(method: method, path: path, door: door, tlsPort: 0, livePath: "/club/live",
                            apiPrefix: "/club/api/", plainListener: plainListener)
    }

    func testTheAPIsPrefixTakesItsFourMethodsAndRefusesTheRestWith405() {
        for method in APIRoutes.methods {
            XCTAssertEqual(club(method, "/club/api/m/abc/answer"), .api(method: method, path: "/club/api/m/abc/answer"))
            XCTAssertEqual(club(method, "/club/api/m/abc/answer", door: .spectator),
                           .api(method: method, path: "/club/api/m/abc/answer"), "behind a proxy, the plain port serves all")
        }
        for method in ["PUT", "OPTIONS", "HEAD"] {
            XCTAssertEqual(club(method, "/club/api/club"), .apiMethodNotAllowed, method)
        }
        // Only under the prefix: its parent, a look-alike and pages stay GET-only.
        XCTAssertEqual(club("POST", "/club/api"), .onlyGet)
        XCTAssertEqual(club("POST", "/club/apix/"), .onlyGet)
        XCTAssertEqual(club("GET", "/club/m/abc"), .serve(path: "/club/m/abc"))
        XCTAssertEqual(club("GET", "/club/m/abc", door: .spectator), .serve(path: "/club/m/abc"))
    }

    func testTheLivePathIsConfigurable() {
        XCTAssertEqual(club("GET", "/club/live"), .upgradeRequired)
        XCTAssertEqual(club("GET", "/live"), .serve(path: "/live"), "/live is a page like any other for the club")
        XCTAssertEqual(club("POST", "/club/live"), .onlyGet)
    }

    /// The spectator door never reaches an API: it may not change anything.
    func testTheSpectatorDoorKeepsTheAPIOut() {
        XCTAssertEqual(club("POST", "/club/api/club", door: .spectator, plainListener: .spectatorDoor), .onlyGet)
        XCTAssertEqual(club("GET", "/club/api/club", door: .spectator, plainListener: .spectatorDoor),
                       .notFound("Nothing here for spectators."))
    }
}
