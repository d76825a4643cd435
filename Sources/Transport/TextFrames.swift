/// Server-to-client WebSocket text frames written by hand (RFC 6455 §5.2: FIN, opcode 1, no
/// mask), for the one case where two messages share one `lws_write`: a sender's snapshot and
/// the `ack` queued behind it. Written apart, the ack waits a whole fan-out turn of the loop.
enum TextFrames {
    /// Writes the header for a text payload of `length` bytes at `start` (room for 10 bytes),
    /// in place, as the fan-out does for every write to a plain socket; returns its size.
    static func writeHeader(payloadLength length: Int, at start: UnsafeMutablePointer<UInt8>) -> Int {
        precondition(length >= 0)
        start[0] = 0x81
        switch length {
        case 0..<126:
            start[1] = UInt8(length)
            return 2
        case 126...0xFFFF:
            start[1] = 126
            start[2] = UInt8(length >> 8)
            start[3] = UInt8(length & 0xFF)
            return 4
        default:
            start[1] = 127
            for index in 0..<8 { start[2 + index] = UInt8(truncatingIfNeeded: UInt64(length) >> (UInt64(7 - index) * 8)) }
            return 10
        }
    }

    /// The size of the header `writeHeader` writes, without writing it: counted on every write.
    static func headerLength(payloadLength length: Int) -> Int {
        length < 126 ? 2 : length <= 0xFFFF ? 4 : 10
    }

    /// The frames one after the other, headers included, ready for a raw write: built in place,
    /// as this runs per connection on the fan-out path.
    static func concatenated(_ frames: [SharedFrame]) -> SharedFrame {
        let total = frames.reduce(0) { $0 + headerLength(payloadLength: $1.count) + $1.count }
        return SharedFrame(count: total) { out in
            var next = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for frame in frames {
                next += writeHeader(payloadLength: frame.count, at: next)
                next.update(from: frame.payload, count: frame.count)
                next += frame.count
            }
        }
    }
}
