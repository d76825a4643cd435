import GatherDelivery
@testable import GatherTransport
import XCTest

/// Every message pays before it costs: the token first, then a scan that never builds a tree.
final class MessageGateTests: XCTestCase {
    private let limits = MessageLimits()

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    // MARK: - The scan

    func testTheScanReadsTheTopLevelTypeAndIdOnly() {
        let command = MessageScan(bytes(#"{"id":"c-1","type":"command","action":{"type":"x","id":"inner"}}"#))
        XCTAssertEqual(command, MessageScan(isCommand: true, id: "c-1"))
        let nested = MessageScan(bytes(#"{"action":{"type":"command"},"type":"login"}"#))
        XCTAssertFalse(nested.isCommand, "a nested type is not the message's")
        XCTAssertEqual(MessageScan(bytes(#"{"type":"command","id":"a\"b\ud83d\ude00\n"}"#)).id, "a\"b😀\n",
                       "an id's escapes are decoded: the answer carries it back")
        XCTAssertNil(MessageScan(bytes(#"{"type":"command","id":"\ud83d"}"#)).id, "a lone surrogate is no id")
        XCTAssertNil(MessageScan(bytes(#"{"type":"command","id":"\#(String(repeating: "x", count: 65))"}"#)).id)
        XCTAssertFalse(MessageScan(bytes(#"["type","command"]"#)).isCommand)
        XCTAssertEqual(MessageScan(bytes(#"{"id":7,"type" : "command"}"#)), MessageScan(isCommand: true, id: nil))
        XCTAssertFalse(MessageScan(bytes(#"{"note":"{[[[[","type":"command"}"#)).tooDeep, "brackets in strings do not nest")
    }

    func testNestingPast64IsFoundWithoutReadingFurther() {
        XCTAssertFalse(MessageScan(Array(repeating: UInt8(ascii: "["), count: 64) + Array(repeating: UInt8(ascii: "]"), count: 64)).tooDeep)
        XCTAssertTrue(MessageScan(Array(repeating: UInt8(ascii: "["), count: 65)).tooDeep)
        XCTAssertTrue(MessageScan(Array(repeating: UInt8(ascii: "["), count: 511)).tooDeep)
    }

    // MARK: - The verdicts

    func testAMalformedMessagePaysItsTokenAndTheBucketsWorthIsAllThatPasses() {
        var connection = ConnectionBudget(limits: limits, now: 0)
        var address = TokenBucket(capacity: 1_000, ratePerSecond: 0, now: 0)
        let junk = bytes("not json at all")
        var verdicts: [MessageGate.Verdict] = []
        for _ in 0..<301 {
            verdicts.append(MessageGate.judge(junk, connection: &connection, address: &address, limits: limits, now: 0))
        }
        XCTAssertEqual(verdicts.prefix(100).filter { $0 == .pass }.count, 100, "the burst passes, to be answered bad_json by the source")
        XCTAssertEqual(verdicts[100], .answer(.rateLimited(isCommand: false, id: nil)))
        XCTAssertEqual(verdicts.filter { $0 == .pass }.count, 100)
        XCTAssertEqual(verdicts.filter { if case .answer = $0 { true } else { false } }.count, 200,
                       "250 sent at once are all answered")
        XCTAssertEqual(verdicts.last, .close(code: CloseCode.policyViolation, reason: "too many messages; slow down"),
                       "a client that keeps going past 200 refusals is closed")
    }

    func testAClientThatKeepsSendingPastItsRefillIsClosedInTheEnd() {
        var connection = ConnectionBudget(limits: limits, now: 0)
        var address = TokenBucket(capacity: 1_000_000, ratePerSecond: 0, now: 0)
        // 1,000 messages a second: one in fifty passes on the refill; the refusals' own bucket
        // runs dry all the same.
        var closedAt: Int?
        for index in 0..<20_000 where closedAt == nil {
            if case .close = MessageGate.judge(bytes("{}"), connection: &connection, address: &address, limits: limits,
                                               now: Int64(index)) {
                closedAt = index
            }
        }
        XCTAssertNotNil(closedAt)
        XCTAssertLessThan(closedAt ?? .max, 1_000)
    }

    func testARefusedCommandIsRejectedWithItsId() {
        var connection = ConnectionBudget(limits: limits, now: 0)
        var address = TokenBucket(capacity: 0, ratePerSecond: 0, now: 0)
        XCTAssertEqual(MessageGate.judge(bytes(#"{"type":"command","id":"c-9"}"#), connection: &connection, address: &address,
                                         limits: limits, now: 0),
                       .answer(.rateLimited(isCommand: true, id: "c-9")), "the address's budget is shared and spent")
        XCTAssertEqual(String(decoding: GateAnswers.bytes(.rateLimited(isCommand: true, id: "c-9"), version: 12), as: UTF8.self),
                       #"{"code":"rate_limited","id":"c-9","message":"Too many commands at once; wait a moment and try again.","type":"rejected","version":12}"#)
    }

    func testTooDeepIsAnsweredBadJSONAndLargeNonCommandsAreClosed() {
        var connection = ConnectionBudget(limits: limits, now: 0)
        var address = TokenBucket(capacity: 1_000, ratePerSecond: 0, now: 0)
        XCTAssertEqual(MessageGate.judge(Array(repeating: UInt8(ascii: "["), count: 511), connection: &connection,
                                         address: &address, limits: limits, now: 0), .answer(.tooDeep))
        let big = bytes(#"{"type":"login","pad":""#) + Array(repeating: UInt8(ascii: "x"), count: 5_000) + bytes(#""}"#)
        XCTAssertEqual(MessageGate.judge(big, connection: &connection, address: &address, limits: limits, now: 0),
                       .close(code: CloseCode.messageTooBig, reason: "messages other than commands are limited to 4 KiB"))
        let bigCommand = bytes(#"{"type":"command","id":"c","pad":""#) + Array(repeating: UInt8(ascii: "x"), count: 60_000) + bytes(#""}"#)
        XCTAssertEqual(MessageGate.judge(bigCommand, connection: &connection, address: &address, limits: limits, now: 0), .pass)
        XCTAssertEqual(connection.bucket.tokens, 100 - 1 - 2 - 15, "a large message costs more")
    }

    func testAConnectionTooFarAheadOfItsSourceStopsBeingReadUntilItDrains() {
        var connection = ConnectionBudget(limits: limits, now: 0)
        let paused = (0..<8).map { _ in MessageGate.handedOver(bytes: 10, connection: &connection, limits: limits) }
        XCTAssertEqual(paused, Array(repeating: false, count: 7) + [true])
        XCTAssertTrue(connection.readingPaused)
        XCTAssertTrue(MessageGate.handled(connection: &connection, limits: limits), "one handled: room again")
        XCTAssertFalse(MessageGate.handled(connection: &connection, limits: limits), "already reading")
        XCTAssertEqual(connection.waiting.count, 6)
        var tls = ConnectionBudget(limits: limits, now: 0)
        let admitted = (0..<130).map { _ in MessageGate.admitToBacklog(bytes: 10, connection: &tls, limits: limits) }
        XCTAssertEqual(admitted.filter { $0 }.count, 128, "on TLS the backlog is bounded by refusing")
        XCTAssertFalse(tls.readingPaused)
        XCTAssertFalse(MessageGate.handled(connection: &tls, limits: limits))
        XCTAssertTrue(MessageGate.admitToBacklog(bytes: 10, connection: &tls, limits: limits), "room again once handled")
        var bytesBound = ConnectionBudget(limits: limits, now: 0)
        XCTAssertTrue(MessageGate.handedOver(bytes: 128 * 1_024, connection: &bytesBound, limits: limits), "bytes count too")
    }
}
