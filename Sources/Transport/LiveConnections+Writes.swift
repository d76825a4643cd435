import CLibWebSockets
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Writing a connection's bytes (service thread only)

/// Why our own `send` for a plain socket: `lws_write` outside lws's writable turn must be
/// preceded by `lws_send_pipe_choked` (lws refuses a second write until something clears its
/// back-to-back check), and that is one `poll` per connection per message: 11% of a relay's
/// CPU under `perf` with 2,000 followers, a syscall nginx + nchan does not pay (one `writev`).
/// A TLS connection still writes through lws: OpenSSL's record layer lives there.
extension LiveConnections {
    /// A plain socket is polled again after this many bytes written since it was last seen
    /// writable (a `poll` or lws's writable turn). So a phone that stops reading is sent at most
    /// this and one message more before the fan-out notices and leaves it to its writable turn,
    /// where the Outbox gives it the newest snapshot instead of a backlog.
    static let bytesBetweenPolls = 4_096

    /// Whether the fan-out may write to `connection` now, outside its writable turn: nothing
    /// buffered in lws, and its socket writable in poll's sense (asked at most once per
    /// `bytesBetweenPolls` on a plain socket, every time with TLS).
    func mayWriteNow(_ connection: LiveConnection) -> Bool {
        if connection.plainSocket != nil, connection.bytesSinceSeenWritable < Self.bytesBetweenPolls {
            return lws_partial_buffered(connection.wsi) == 0
        }
        guard lws_send_pipe_choked(connection.wsi) == 0 else { return false }
        connection.bytesSinceSeenWritable = 0
        return true
    }

    /// Writes one text frame; -1 when the connection failed.
    func sendText(_ frame: SharedFrame, on connection: LiveConnection) -> Int32 {
        guard connection.plainSocket != nil else {
            return lws_write(connection.wsi, frame.payload, frame.count, LWS_WRITE_TEXT) < 0 ? -1 : 0
        }
        let framed = frame.framedAsText()
        return sendRaw(framed.start, count: framed.count, on: connection)
    }

    /// Writes bytes that carry their own frame headers; -1 when the connection failed. On a
    /// plain socket whatever the kernel does not take goes to lws (`LWS_WRITE_HTTP` is its raw
    /// write), which keeps it, asks for the writable turn and writes it before anything else.
    func sendRaw(_ bytes: UnsafeMutablePointer<UInt8>, count: Int, on connection: LiveConnection) -> Int32 {
        guard let socket = connection.plainSocket else {
            return lws_write(connection.wsi, bytes, count, LWS_WRITE_HTTP) < 0 ? -1 : 0
        }
        connection.bytesSinceSeenWritable += count
        let sent = send(socket, bytes, count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        if sent == count { return 0 }
        if sent < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { return -1 }
        let taken = max(sent, 0)
        // The check lws asks for before a write of its own outside the turn; its answer is
        // already known (the socket is full).
        _ = lws_send_pipe_choked(connection.wsi)
        return lws_write(connection.wsi, bytes + taken, count - taken, LWS_WRITE_HTTP) < 0 ? -1 : 0
    }
}

extension SharedFrame {
    /// The payload as one WebSocket text frame: its header written into the headroom right in
    /// front of it (the same bytes every time, on the one service thread).
    func framedAsText() -> (start: UnsafeMutablePointer<UInt8>, count: Int) {
        let start = payload - TextFrames.headerLength(payloadLength: count)
        let headerLength = TextFrames.writeHeader(payloadLength: count, at: start)
        return (start, headerLength + count)
    }
}
