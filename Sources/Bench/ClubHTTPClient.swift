import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The club's JSON API over plain HTTP on loopback, with Foundation's URLSession: one request per
/// call, keep-alive connections reused (as a phone's browser does), at most
/// `connectionsPerHost` open to each instance.
final class ClubHTTPClient: @unchecked Sendable {
    /// What came back: the status and the body parsed as JSON (nil when it is not JSON).
    struct Reply: @unchecked Sendable {
        let status: Int
        let json: Any?
        let bytes: Int
    }

    private let session: URLSession
    /// Responses larger than this are refused (the club's biggest view, 500 members, is ~60 KB).
    static let maximumBodyBytes = 4 << 20

    init(connectionsPerHost: Int, timeoutSeconds: Double = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connectionsPerHost
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    func invalidate() { session.invalidateAndCancel() }

    /// Sends `method base+path` with `body` as JSON (and the bearer `token`); `done` gets the reply
    /// or the transport's error, on one of the session's threads.
    func send(_ method: String, base: String, path: String, body: [String: Any]? = nil, token: String? = nil,
              done: @escaping @Sendable (Result<Reply, BenchError>) -> Void) {
        guard let url = URL(string: base + path) else { done(.failure(BenchError("bad URL \(base)\(path)"))); return }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            guard let data = try? JSONSerialization.data(withJSONObject: body) else {
                done(.failure(BenchError("the request body is not JSON"))); return
            }
            request.httpBody = data
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        session.dataTask(with: request) { data, response, error in
            if let error { done(.failure(BenchError("\(method) \(path): \(error.localizedDescription)"))); return }
            guard let http = response as? HTTPURLResponse else { done(.failure(BenchError("\(method) \(path): no HTTP response"))); return }
            let data = data ?? Data()
            guard data.count <= Self.maximumBodyBytes else {
                done(.failure(BenchError("\(method) \(path): a \(data.count)-byte body"))); return
            }
            done(.success(Reply(status: http.statusCode, json: try? JSONSerialization.jsonObject(with: data), bytes: data.count)))
        }.resume()
    }

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
