import Foundation

/// The club's JSON API over plain HTTP on loopback: one request per call, over kept-alive
/// connections (as a phone's browser keeps one), taken from a pool per instance; blocking
/// exchanges on a queue of their own (the callers bound how many run at once).
final class ClubHTTPClient: @unchecked Sendable {
    /// What came back: the status and the body parsed as JSON (nil when it is not JSON).
    struct Reply: @unchecked Sendable {
        let status: Int
        let json: Any?
        let bytes: Int
    }

    private let queue = DispatchQueue(label: "gather-bench.club-http", attributes: .concurrent)
    private let lock = NSLock()
    private var idle: [Int: [(connection: LoopbackHTTPConnection, lastUsed: UInt64)]] = [:]
    private let timeoutSeconds: Int

    init(timeoutSeconds: Int = 30) {
        self.timeoutSeconds = timeoutSeconds
    }

    /// Closes the idle connections.
    func invalidate() {
        let all = lock.withLock { () -> [LoopbackHTTPConnection] in
            defer { idle = [:] }
            return idle.values.flatMap { $0.map(\.connection) }
        }
        for connection in all { connection.close() }
    }

    /// Sends `method base+path` with `body` as JSON (and the bearer `token`); `done` gets the reply
    /// or the error, on the client's queue.
    func send(_ method: String, base: String, path: String, body: [String: Any]? = nil, token: String? = nil,
              done: @escaping @Sendable (Result<Reply, BenchError>) -> Void) {
        guard let port = URLComponents(string: base)?.port else { done(.failure(BenchError("bad base URL \(base)"))); return }
        var headers = [("Accept", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        var bytes: [UInt8] = []
        if let body {
            guard let data = try? JSONSerialization.data(withJSONObject: body) else {
                done(.failure(BenchError("the request body is not JSON"))); return
            }
            bytes = Array(data)
            headers.append(("Content-Type", "application/json"))
        }
        let request = (headers, bytes)
        queue.async { [self] in
            done(perform(method, port: port, path: path, headers: request.0, body: request.1))
        }
    }

    /// One exchange on an idle connection (or a new one). Idle connections older than
    /// `idleSeconds` are closed unused (the server lets an idle keep-alive go after a few seconds).
    /// A kept-alive connection the server closed all the same fails before any byte came back:
    /// then once more on a new connection (the change's `id` makes a repeat harmless, as the
    /// contract promises).
    private func perform(_ method: String, port: Int, path: String, headers: [(String, String)], body: [UInt8])
        -> Result<Reply, BenchError>
    {
        for attempt in 0..<2 {
            let reused = attempt == 0 ? takeIdle(port: port) : nil
            let connection: LoopbackHTTPConnection
            do {
                connection = try reused ?? LoopbackHTTPConnection(port: port, timeoutSeconds: timeoutSeconds)
            } catch {
                return .failure(error as? BenchError ?? BenchError("\(error)"))
            }
            var received = false
            do {
                let (status, responseBody) = try connection.exchange(method: method, path: path, headers: headers, body: body,
                                                                     received: &received)
                let now = BenchClock.nanoseconds()
                lock.withLock { idle[port, default: []].append((connection, now)) }
                let json = try? JSONSerialization.jsonObject(with: Data(responseBody))
                return .success(Reply(status: status, json: json, bytes: responseBody.count))
            } catch {
                connection.close()
                if reused != nil, !received { continue }
                return .failure(BenchError("\(method) \(path): \(error)"))
            }
        }
        return .failure(BenchError("\(method) \(path): no connection"))
    }

    /// The most recently used idle connection to `port` that is young enough; older ones are closed.
    private func takeIdle(port: Int) -> LoopbackHTTPConnection? {
        let oldest = BenchClock.nanoseconds() - UInt64(Self.idleSeconds * 1e9)
        let (fresh, stale) = lock.withLock { () -> (LoopbackHTTPConnection?, [LoopbackHTTPConnection]) in
            let entries = idle[port] ?? []
            let stale = entries.filter { $0.lastUsed < oldest }.map(\.connection)
            var young = entries.filter { $0.lastUsed >= oldest }
            let fresh = young.popLast()?.connection
            idle[port] = young
            return (fresh, stale)
        }
        for connection in stale { connection.close() }
        return fresh
    }

    static let idleSeconds = 3.0

    /// `send`, waiting for the reply; anything but 200 throws with the body's error code.
    func call(_ method: String, base: String, path: String, body: [String: Any]? = nil, token: String? = nil) throws -> [String: Any] {
        let finished = DispatchSemaphore(value: 0)
        let box = ResultBox()
        send(method, base: base, path: path, body: body, token: token) { result in
            box.result = result
            finished.signal()
        }
        guard finished.wait(timeout: .now() + 60) == .success, let result = box.result else {
            throw BenchError("\(method) \(path): no answer within 60 s")
        }
        let reply = try result.get()
        guard reply.status == 200, let object = reply.json as? [String: Any] else {
            let code = ((reply.json as? [String: Any])?["error"] as? [String: Any])?["code"] ?? "?"
            throw BenchError("\(method) \(path): HTTP \(reply.status) (\(code))")
        }
        return object
    }

    private final class ResultBox: @unchecked Sendable {
        var result: Result<Reply, BenchError>?
    }
}

/// A fresh change id (the API's `id`: 1–64 of `A-Za-z0-9-_`).
func clubChangeId() -> String {
    UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
}
