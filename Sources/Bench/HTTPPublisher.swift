import Foundation

/// POSTs to nchan's publisher over one kept-alive loopback HTTP/1.1 connection, as a relay keeps
/// one NATS connection: a connection per message would bill nginx for accepting it.
final class HTTPPublisher {
    private let connection: LoopbackHTTPConnection
    private let path: String

    init(port: Int, path: String) throws {
        connection = try LoopbackHTTPConnection(port: port)
        self.path = path
    }

    /// The response's status code, once its whole body is read.
    func post(_ body: [UInt8]) throws -> Int {
        var received = false
        return try connection.exchange(method: "POST", path: path, headers: [("Content-Type", "text/plain")], body: body,
                                       received: &received).status
    }

    func close() { connection.close() }
}
