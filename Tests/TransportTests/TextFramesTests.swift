@testable import GatherTransport
import XCTest

/// The bytes a browser's WebSocket parser reads when two messages share one write.
final class TextFramesTests: XCTestCase {
    func testHeadersUseTheShortestLengthEncodingOfRFC6455() {
        XCTAssertEqual(TextFrames.header(payloadLength: 0), [0x81, 0])
        XCTAssertEqual(TextFrames.header(payloadLength: 125), [0x81, 125])
        XCTAssertEqual(TextFrames.header(payloadLength: 126), [0x81, 126, 0, 126])
        XCTAssertEqual(TextFrames.header(payloadLength: 4_806), [0x81, 126, 0x12, 0xC6])
        XCTAssertEqual(TextFrames.header(payloadLength: 65_535), [0x81, 126, 0xFF, 0xFF])
        XCTAssertEqual(TextFrames.header(payloadLength: 65_536), [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0])
        // What /metrics counts per write, without building the header.
        for length in [0, 125, 126, 4_806, 65_535, 65_536] {
            XCTAssertEqual(TextFrames.headerLength(payloadLength: length), TextFrames.header(payloadLength: length).count)
        }
    }

    func testTwoMessagesAreFramedInOrderWithNothingBetween() {
        let snapshot = SharedFrame(Array(repeating: UInt8(ascii: "s"), count: 300))
        let ack = SharedFrame(Array(#"{"type":"ack","id":"a","version":7}"#.utf8))
        let combined = TextFrames.concatenated([snapshot, ack]).bytes
        XCTAssertEqual(combined.count, 4 + 300 + 2 + ack.count)
        XCTAssertEqual(Array(combined[0..<4]), [0x81, 126, 0x01, 0x2C])
        XCTAssertEqual(Array(combined[4..<304]), snapshot.bytes)
        XCTAssertEqual(Array(combined[304..<306]), [0x81, UInt8(ack.count)])
        XCTAssertEqual(Array(combined[306...]), ack.bytes)
    }

    /// What the fan-out sends to a plain socket itself: the frame header in the headroom, right
    /// in front of the shared payload, which stays as it was.
    func testAFrameForAPlainSocketIsItsHeaderThenItsPayload() {
        for length in [0, 125, 126, 65_535, 65_536] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
            let frame = SharedFrame(payload)
            let framed = frame.framedAsText()
            let bytes = Array(UnsafeBufferPointer(start: framed.start, count: framed.count))
            XCTAssertEqual(bytes, TextFrames.header(payloadLength: length) + payload, "\(length) bytes")
            XCTAssertEqual(frame.bytes, payload)
        }
    }
}

extension TextFrames {
    /// The header `writeHeader` writes, as an array to compare with.
    static func header(payloadLength length: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 10) { buffer, written in
            written = writeHeader(payloadLength: length, at: buffer.baseAddress!)
        }
    }
}
