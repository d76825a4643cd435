import XCTest

@testable import GatherStream

/// The venue's watch over its own stream: each acknowledgement and each read of the last message,
/// and what it says to do.
final class StreamIntegrityTests: XCTestCase {
    private let body: [UInt8] = Array(#"{"type":"patch"}"#.utf8)

    func testConsecutiveSequencesOfTheVenuesOwnAreFine() {
        var integrity = StreamIntegrity()
        XCTAssertEqual(integrity.stored(sequence: 7, duplicate: false, body: body), .fine, "the first of a run")
        XCTAssertEqual(integrity.stored(sequence: 8, duplicate: false, body: body), .fine)
        XCTAssertEqual(integrity.lastStored?.sequence, 8)
        XCTAssertEqual(integrity.lastMessageRead((8, body)), .fine)
        XCTAssertEqual(integrity.lastMessageRead(nil), .fine, "a read that failed finds nothing wrong")
    }

    func testADuplicateIsAFaultAndChangesNothingKept() {
        var integrity = StreamIntegrity()
        _ = integrity.stored(sequence: 3, duplicate: false, body: body)
        guard case .fault(let reason) = integrity.stored(sequence: 9, duplicate: true, body: body) else {
            return XCTFail("a duplicate must be a fault")
        }
        XCTAssertTrue(reason.contains("duplicate"), reason)
        XCTAssertEqual(integrity.lastStored?.sequence, 3)
        XCTAssertEqual(integrity.stored(sequence: 4, duplicate: false, body: body), .fine)
    }

    func testASkippedSequenceIsAFaultCountingWhatWasStoredBetween() {
        var integrity = StreamIntegrity()
        _ = integrity.stored(sequence: 3, duplicate: false, body: body)
        XCTAssertEqual(integrity.stored(sequence: 6, duplicate: false, body: body),
                       .fault(reason: "the stream stored 2 message(s) the venue did not publish since its sequence 3"))
        XCTAssertEqual(integrity.stored(sequence: 7, duplicate: false, body: body), .fine, "the repair itself follows on")
    }

    func testALastMessageOfAnotherSequenceOrOtherBytesIsAFault() {
        var integrity = StreamIntegrity()
        XCTAssertEqual(integrity.lastMessageRead((5, body)), .fine, "nothing stored yet: nothing to compare")
        _ = integrity.stored(sequence: 5, duplicate: false, body: body)
        XCTAssertNotEqual(integrity.lastMessageRead((6, Array("junk".utf8))), .fine)
        XCTAssertNotEqual(integrity.lastMessageRead((5, Array("junk".utf8))), .fine)
        integrity.forget()
        XCTAssertNil(integrity.lastStored)
        XCTAssertEqual(integrity.stored(sequence: 1, duplicate: false, body: body), .fine, "a stream made again starts afresh")
    }

    func testResultsInTheSameStreamAreTheVenuesOwnNeighboursAndADuplicateResultIsNoFault() {
        var integrity = StreamIntegrity()
        XCTAssertEqual(integrity.stored(sequence: 3, duplicate: false, body: body), .fine)
        XCTAssertEqual(integrity.storedResult(sequence: 4, duplicate: false), .fine, "a result right after a state")
        XCTAssertEqual(integrity.storedResult(sequence: 4, duplicate: true), .fine, "published again after a restart")
        XCTAssertEqual(integrity.stored(sequence: 5, duplicate: false, body: body), .fine, "a state right after a result")
        XCTAssertEqual(integrity.lastMessageRead((5, body)), .fine)
        XCTAssertEqual(integrity.storedResult(sequence: 9, duplicate: false),
                       .fault(reason: "the stream stored 3 message(s) the venue did not publish since its sequence 5"))
        XCTAssertEqual(integrity.lastStored?.sequence, 5, "the last state is still the one the state subject holds")
    }
}
