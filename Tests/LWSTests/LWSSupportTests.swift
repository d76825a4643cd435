import CLibWebSockets
import GatherLWS
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The lws support module against a real lws context: the timer fires on the loop, the storage
/// keeps what lws points into, and the descriptor limit is fitted to the connections.
final class LWSSupportTests: XCTestCase {
    // MARK: - LoopTimer

    func testTimerRunsItsActionOnTheLoopAndNotAfterDetach() throws {
        lws_set_log_level(0, nil)
        let storage = LWSContextStorage()
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = storage.protocolList([
            lws_protocols(name: storage.cString("http"), callback: lws_callback_http_dummy,
                          per_session_data_size: 0, rx_buffer_size: 0, id: 0, user: nil, tx_packet_size: 0),
        ])
        let context = try XCTUnwrap(lws_create_context(&info))
        defer { lws_context_destroy(context) }

        // lws may sleep past a timer due within the next millisecond until its own 30 s tick; a
        // second thread wakes the loop (lws_cancel_service is lws's one thread-safe call), as the
        // Transport's hand-offs do.
        let done = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let shared = context
        let waker = Thread {
            while done.wait(timeout: .now() + .milliseconds(2)) == .timedOut { lws_cancel_service(shared) }
            finished.signal()
        }
        waker.start()
        defer { done.signal(); finished.wait() }

        let timer = LoopTimer()
        var fired = 0
        timer.attach(context) { fired += 1 }
        timer.schedule(afterMicroseconds: 1_000)
        let deadline = Date().addingTimeInterval(5)
        while fired == 0, Date() < deadline { _ = lws_service(context, 0) }
        XCTAssertEqual(fired, 1)

        // lws_service sleeps until the next timer, so a second one ends the wait after the first was due.
        timer.schedule(afterMicroseconds: 1_000)
        timer.detach()
        let stop = LoopTimer()
        var stopped = false
        stop.attach(context) { stopped = true }
        stop.schedule(afterMicroseconds: 20_000)
        let second = Date().addingTimeInterval(5)
        while !stopped, Date() < second { _ = lws_service(context, 0) }
        XCTAssertTrue(stopped)
        XCTAssertEqual(fired, 1, "a detached timer does nothing when it comes due")
    }

    // MARK: - LWSContextStorage

    func testStorageKeepsCopiesAndEndsProtocolListsWithAZeroEntry() throws {
        let storage = LWSContextStorage()
        var text = "gather.v2"
        let copy = storage.cString(text)
        text = "changed"
        XCTAssertEqual(String(cString: copy), "gather.v2")

        var first = lws_protocols()
        first.name = storage.cString("gather.v1")
        let list = storage.protocolList([first, first])
        XCTAssertEqual(String(cString: list[1].name), "gather.v1")
        XCTAssertNil(list[2].name, "lws stops at the entry with no name")
        XCTAssertNil(list[2].callback)

        let policy = storage.retryPolicy(secondsSinceValidPing: 30, secondsSinceValidHangup: 60)
        XCTAssertEqual(policy.pointee.secs_since_valid_ping, 30)
        XCTAssertEqual(policy.pointee.secs_since_valid_hangup, 60)
        XCTAssertEqual(policy.pointee.retry_ms_table.pointee, 1000)
    }

    // MARK: - FileDescriptorLimit

    func testSoftLimitFitsTheConnectionsWithinTheHardLimit() throws {
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &saved), 0)
        defer { _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &saved) }

        FileDescriptorLimit.fit(connections: 100)
        var now = rlimit()
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &now)
        XCTAssertEqual(now.rlim_cur, min(rlim_t(100 + FileDescriptorLimit.headroom), saved.rlim_max),
                       "lowered to what 100 sockets need")

        FileDescriptorLimit.fit(connections: Int(Int32.max))
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &now)
        XCTAssertLessThanOrEqual(now.rlim_cur, saved.rlim_max, "never above the hard limit")

        XCTAssertEqual(FileDescriptorLimit.raiseToHardLimit(), Int(clamping: saved.rlim_max), "a load generator takes all")
    }
}
