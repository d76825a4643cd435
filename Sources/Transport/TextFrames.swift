/// Server-to-client WebSocket text frames written by hand (RFC 6455 §5.2: FIN, opcode 1, no
/// mask), for the one case where two messages share one `lws_write`: a sender's snapshot and
/// the `ack` queued behind it. Written apart, the ack waits a whole fan-out turn of the loop.
enum TextFrames {
    /// The frame header for a text payload of `length` bytes.
    static func header(payloadLength length: Int) -> [UInt8] {
        precondition(length >= 0)
        switch length {
        case 0..<126:
            return [0x81, UInt8(length)]
        case 126...0xFFFF:
            return [0x81, 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        default:
            return [0x81, 127] + (0..<8).reversed().map { UInt8((UInt64(length) >> (UInt64($0) * 8)) & 0xFF) }
        }
    }

    /// The size of `header(payloadLength:)`, without building it: counted on every write.
    static func headerLength(payloadLength length: Int) -> Int {
        length < 126 ? 2 : length <= 0xFFFF ? 4 : 10
    }

    /// The frames one after the other, headers included, ready for a raw write: built in place,
    /// as this runs per connection on the fan-out path.
    static func concatenated(_ frames: [SharedFrame]) -> SharedFrame {
        let headers = frames.map { header(payloadLength: $0.count) }
        let total = zip(frames, headers).reduce(0) { $0 + $1.0.count + $1.1.count }
        return SharedFrame(count: total) { out in
            var offset = 0
            for (frame, header) in zip(frames, headers) {
                header.withUnsafeBytes { out.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                offset += header.count
                out.baseAddress!.advanced(by: offset).copyMemory(from: frame.payload, byteCount: frame.count)
                offset += frame.count
            }
        }
    }
}
