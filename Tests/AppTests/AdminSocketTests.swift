import Foundation
@testable import GatherApp
import GatherCoordinator
import GatherPresenters
import Logging
import XCTest

/// The laptop's channel to a running server: one JSON line each way over a Unix-domain socket in
/// the data folder, mode 0600, also when the folder's path is longer than `sun_path` holds.
final class AdminSocketTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        // Deeper than the 107 bytes a socket address holds, as a data folder in a home directory can be.
        folder = NSTemporaryDirectory() + "gather-admin-" + UUID().uuidString + "/" + String(repeating: "deep/", count: 18)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }

    private func ask(_ request: AdminCall) throws -> AdminReply? {
        let path = AdminSocketServer.path(inDataFolder: folder)
        guard let connection = try UnixSocket.connect(to: path) else { return nil }
        defer { close(connection) }
        XCTAssertTrue(UnixSocket.writeAll(connection, AdminWire.encode(request)))
        return UnixSocket.readLine(connection, limit: 1 << 16).flatMap(AdminWire.decodeReply)
    }

    func testALongFolderPathStillServesRequestsAndTheSocketIsTheOwnersOnly() throws {
        XCTAssertGreaterThan(AdminSocketServer.path(inDataFolder: folder).utf8.count, 108)
        let heard = Heard()
        let server = try AdminSocketServer(dataFolder: folder, logger: Logger(label: "test")) { request in
            heard.append(request)
            return request == .list ? .organisers([OrganiserSummary(username: "ann", owner: true, createdAt: 1,
                                                                      lastSeenAt: nil, online: false, sessions: 0)])
                : .failed("There is no organiser called zed.")
        }
        server.start()
        var info = stat()
        XCTAssertEqual(stat(server.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)

        XCTAssertEqual(try ask(.list), .organisers([OrganiserSummary(username: "ann", owner: true, createdAt: 1,
                                                                     lastSeenAt: nil, online: false, sessions: 0)]))
        XCTAssertEqual(try ask(.remove("zed")), .failed("There is no organiser called zed."))
        XCTAssertThrowsError(try AdminSocketServer(dataFolder: folder, logger: Logger(label: "test")) { _ in .done("") },
                             "a second server on the same folder is refused")
        server.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.path), "the socket leaves with the server")
        XCTAssertNil(try ask(.list), "nobody answers: the CLI works on the database instead")
        XCTAssertEqual(heard.requests, [.list, .remove("zed")])
    }

    func testAStaleSocketFileIsReplacedAndUnreadableRequestsChangeNothing() throws {
        let path = AdminSocketServer.path(inDataFolder: folder)
        FileManager.default.createFile(atPath: path, contents: Data("left behind".utf8))
        let heard = Heard()
        let server = try AdminSocketServer(dataFolder: folder, logger: Logger(label: "test")) { request in
            heard.append(request)
            return .done("ok")
        }
        server.start()
        defer { server.stop() }
        for line in ["not json", #"{"request":"explode"}"#, #"{"request":"remove"}"#,
                     #"{"request":"resetPassword","username":"bob","passwordHash":"$scrypt$weak"}"#,
                     #"{"request":"resetPassword","username":"bob","newPassword":"short"}"#] {
            let connection = try XCTUnwrap(try UnixSocket.connect(to: path))
            XCTAssertTrue(UnixSocket.writeAll(connection, Array((line + "\n").utf8)))
            let reply = UnixSocket.readLine(connection, limit: 4096).flatMap(AdminWire.decodeReply)
            close(connection)
            XCTAssertEqual(reply, .failed("The request could not be read."), line)
        }
        // More than 4 KiB without a line end: told the cap, then closed.
        let flood = try XCTUnwrap(try UnixSocket.connect(to: path))
        _ = UnixSocket.writeAll(flood, [UInt8](repeating: UInt8(ascii: "x"), count: 5000))
        XCTAssertEqual(UnixSocket.readLine(flood, limit: 4096).flatMap(AdminWire.decodeReply),
                       .failed("The request is longer than 4096 bytes; nothing was done."))
        close(flood)
        XCTAssertEqual(heard.requests, [])
        XCTAssertEqual(try ask(.makeOwner("bob")), .done("ok"))
        XCTAssertEqual(AdminWire.decodeRequest(Array(AdminWire.encode(.resetPassword("bob", newPassword: "a new one!"))
            .dropLast())), .resetPassword("bob", newPassword: "a new one!"))
        XCTAssertEqual(AdminCall.resetPassword("bob", newPassword: "a new one!").request(hashing: { "$scrypt$" + $0.reversed() }),
                       .resetPassword("bob", passwordHash: "$scrypt$!eno wen a"))
    }

    /// One byte every 0.3 s never completes a request within the deadline: the client is told so
    /// and dropped at the deadline (not after its last byte), and the next request is served.
    func testASlowClientIsDroppedAtTheRequestDeadlineAndTheNextIsServed() throws {
        let server = try AdminSocketServer(dataFolder: folder, logger: Logger(label: "test")) { _ in .done("served") }
        server.start()
        defer { server.stop() }
        let slow = try XCTUnwrap(try UnixSocket.connect(to: server.path))
        defer { close(slow) }
        let started = ContinuousClock.now
        var closedAfter: Duration?
        for byte in Array(#"{"request":"list"}"#.utf8) {
            guard UnixSocket.writeAll(slow, [byte]) else { break }
            var waiting = pollfd(fd: slow, events: Int16(POLLIN), revents: 0)
            if poll(&waiting, 1, 300) > 0 {
                closedAfter = ContinuousClock.now - started
                break
            }
        }
        let answer = UnixSocket.readLine(slow, limit: 4096).flatMap(AdminWire.decodeReply)
        XCTAssertEqual(answer, .failed(AdminSocketServer.lateAnswer))
        let after = try XCTUnwrap(closedAfter, "still held after every byte")
        XCTAssertGreaterThanOrEqual(after, AdminSocketServer.requestDeadline - .milliseconds(100))
        XCTAssertLessThan(after, AdminSocketServer.requestDeadline + .seconds(1))
        XCTAssertEqual(try ask(.list), .done("served"))
    }
}

extension AdminSocketTests {
    /// Connections that say nothing hold only themselves: the next request is answered at once, up
    /// to `connectionLimit` connections; one more is told so and closed without waiting.
    func testSilentConnectionsDoNotHoldTheNextAndOnePastTheLimitIsToldAtOnce() throws {
        let server = try AdminSocketServer(dataFolder: folder, logger: Logger(label: "test")) { _ in .done("served") }
        server.start()
        defer { server.stop() }
        var quiet = try (0..<10).map { _ in try XCTUnwrap(try UnixSocket.connect(to: server.path)) }
        defer { quiet.forEach { close($0) } }
        let started = ContinuousClock.now
        XCTAssertEqual(try ask(.list), .done("served"))
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(500))

        quiet += try (10..<AdminSocketServer.connectionLimit).map { _ in try XCTUnwrap(try UnixSocket.connect(to: server.path)) }
        let extra = try XCTUnwrap(try UnixSocket.connect(to: server.path))
        defer { close(extra) }
        let told = ContinuousClock.now
        XCTAssertEqual(UnixSocket.readLine(extra, limit: 4096).flatMap(AdminWire.decodeReply),
                       .failed(AdminSocketServer.busyAnswer))
        XCTAssertLessThan(ContinuousClock.now - told, .milliseconds(500))
    }
}

private final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [AdminCall] = []
    var requests: [AdminCall] { lock.withLock { stored } }
    func append(_ request: AdminCall) { lock.withLock { stored.append(request) } }
}
