import CLibWebSockets

/// One message's bytes with the headroom `lws_write` needs in front. A snapshot is encoded once
/// into one of these and the same buffer is written to every connection: lws (over TLS) or the
/// fan-out itself (`framedAsText`, on a plain socket) writes the frame header in the headroom on
/// each write, the same bytes each time, which is safe on the single service thread.
final class SharedFrame {
    static let headroom = Int(gather_lws_pre())

    private let storage: UnsafeMutableRawBufferPointer
    let count: Int

    convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count) { payload in
            bytes.withUnsafeBytes { source in
                if let base = source.baseAddress { payload.baseAddress!.copyMemory(from: base, byteCount: source.count) }
            }
        }
    }

    /// `fill` writes the `count` payload bytes in place (no intermediate array).
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) -> Void) {
        self.count = count
        storage = .allocate(byteCount: Self.headroom + max(1, count), alignment: 16)
        fill(UnsafeMutableRawBufferPointer(start: storage.baseAddress! + Self.headroom, count: count))
    }

    deinit { storage.deallocate() }

    /// The payload, with `headroom` writable bytes before it.
    var payload: UnsafeMutablePointer<UInt8> {
        (storage.baseAddress! + Self.headroom).assumingMemoryBound(to: UInt8.self)
    }

    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: payload, count: count)) }
}
