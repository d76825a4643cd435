import Dispatch
import Foundation
import GatherDelivery
import GatherTransport

/// The API's handler: answers `/club/api/echo` from another queue after a short delay,
/// `/club/api/late` after `?ms=` milliseconds, and `/club/api/silent` only when a test says.
final class DelayedAPIHandler: @unchecked Sendable {
    private let queue = DispatchQueue(label: "test.api", attributes: .concurrent)
    private let condition = NSCondition()
    private var handed = 0
    private var replied = 0
    private var silent: [APIReply] = []

    var handedOver: Int { condition.withLock { handed } }

    var handle: @Sendable (HTTPRequest, APIReply) -> Void {
        { [self] request, reply in
            condition.withLock {
                handed += 1
                if request.path == "/club/api/silent" { silent.append(reply) }
                condition.broadcast()
            }
            switch request.path {
            case "/club/api/echo":
                queue.asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
                    var seen = request.headers
                    seen["method"] = request.method
                    seen["path"] = request.path
                    seen["query"] = request.query ?? ""
                    seen["body"] = String(decoding: request.body, as: UTF8.self)
                    let body = (try? JSONSerialization.data(withJSONObject: seen, options: [.sortedKeys])) ?? Data()
                    reply.send(HTTPResponse(status: 200, contentType: "application/json", body: Array(body)))
                    note()
                }
            case "/club/api/now":
                // Answered before the handler returns, on the service thread itself.
                reply.send(HTTPResponse(status: 201, contentType: "application/json", body: Array("{}".utf8),
                                        extraHeaders: [("Location", "/club/api/things/1")]))
                reply.send(HTTPResponse(status: 500, contentType: "text/plain", body: Array("second".utf8)))
            case "/club/api/late":
                let delay = Int(request.query?.split(separator: "=").last ?? "0") ?? 0
                queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [self] in
                    reply.send(HTTPResponse(status: 200, contentType: "text/plain", body: Array("late".utf8)))
                    note()
                }
            default:
                break
            }
        }
    }

    private func note() {
        condition.withLock {
            replied += 1
            condition.broadcast()
        }
    }

    /// Answers the oldest silent request; false when none waits.
    func answerSilent(_ response: HTTPResponse) -> Bool {
        let reply: APIReply? = condition.withLock { silent.isEmpty ? nil : silent.removeFirst() }
        return reply?.send(response) ?? false
    }

    func waitForHandedOver(_ count: Int) -> Bool { wait { $0.handed >= count } }
    func waitForReplied(_ count: Int) -> Bool { wait { $0.replied >= count } }

    private func wait(_ predicate: (DelayedAPIHandler) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(self) {
            guard condition.wait(until: deadline) else { return predicate(self) }
        }
        return true
    }
}

/// A club-like source: no greeting; each message is answered with a direct reply.
final class ClubEchoSource: TransportSource, @unchecked Sendable {
    weak var server: LiveServer?
    private let queue = DispatchQueue(label: "test.club")
    private let condition = NSCondition()
    private var opened: [WireProtocol] = []

    func connectionOpened(_ id: ConnectionID, remoteAddress: String, protocol wire: WireProtocol, door: Door) {
        condition.withLock {
            opened.append(wire)
            condition.broadcast()
        }
    }

    func connectionClosed(_ id: ConnectionID) {}

    func received(_ text: String, from id: ConnectionID) {
        queue.async { [self] in server?.deliver([.send(id, Array("echo \(text)".utf8)), .handled(id)]) }
    }

    func waitForOpened() -> Bool {
        let deadline = Date().addingTimeInterval(5)
        condition.lock()
        defer { condition.unlock() }
        while !opened.contains(.club) {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }
}
