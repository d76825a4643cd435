@testable import GatherCoordinator
import Foundation
import GatherDelivery
import Glibc
import Logging
import Synchronization
import XCTest

/// `KDFThreads` for real: each run's own thread, its nice value read from inside the run.
final class KDFThreadsTests: XCTestCase {
    private let threads = KDFThreads(logger: Logger(label: "test.kdf"))

    /// The nice value the run's thread has when `work` runs (after `between`, if given).
    private func niceInside(fromSuspect: Bool, between: ((ConnectionID) -> Void)? = nil) -> Int32 {
        let client = ConnectionID(UInt64.random(in: 1...1_000_000))
        let started = DispatchSemaphore(value: 0), proceed = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let seen = Mutex<Int32>(-100)
        threads.run(for: client, fromSuspect: fromSuspect) {
            started.signal()
            proceed.wait()
            errno = 0
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            seen.withLock { $0 = nice }
            done.signal()
        }
        started.wait()
        between?(client)
        proceed.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        return seen.withLock { $0 }
    }

    private var ownNice: Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    func testACleanAddresssRunKeepsTheStartersPriority() {
        XCTAssertEqual(niceInside(fromSuspect: false), ownNice)
    }

    func testASuspectsRunIsLoweredFromItsStart() {
        XCTAssertEqual(niceInside(fromSuspect: true), KDFThreads.suspectNice)
    }

    func testARunIsLoweredWhileItRunsWhenItsAddressFails() {
        XCTAssertEqual(niceInside(fromSuspect: false, between: { self.threads.lower($0) }),
                       KDFThreads.suspectNice)
    }
}
