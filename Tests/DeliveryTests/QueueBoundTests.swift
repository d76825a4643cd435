import Foundation
import Dispatch
import GatherDelivery
import XCTest

final class QueueBoundTests: XCTestCase {
    func testTheOwningQueueReadsAndChangesTheValue() {
        let queue = DispatchQueue(label: "test.owner")
        let bound = QueueBound([Int](), queue: queue)
        let seen: [Int] = queue.sync {
            bound.value.append(1)
            bound.withValue { $0.append(2) }
            return bound.value
        }
        XCTAssertEqual(seen, [1, 2])
    }

    func testWorkOnAnotherQueueTargetingTheOwnerCountsAsTheOwner() {
        let owner = DispatchQueue(label: "test.owner")
        let bound = QueueBound(0, queue: owner)
        let nested = DispatchQueue(label: "test.nested", target: owner)
        let value: Int = nested.sync {
            bound.value += 5
            return bound.value
        }
        XCTAssertEqual(value, 5)
    }
}

/// The check is the point of the box: a read off the owning queue must stop the process (in
/// release builds too). A trap cannot be caught in-process, so the parent test runs this bundle
/// again with only the child test selected and looks at how the child ended.
final class QueueBoundTrapTests: XCTestCase {
    private static let childVariable = "GATHER_QUEUE_BOUND_TRAP_CHILD"

    func testChildReadsOffTheOwningQueue() throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == "1" else {
            throw XCTSkip("runs only as the child of testAReadOffTheOwningQueueStopsTheProcess")
        }
        let bound = QueueBound(41, queue: DispatchQueue(label: "test.owner"))
        print("read \(bound.value)")  // on the test's own thread, not the owner's: traps here
    }

    func testAReadOffTheOwningQueueStopsTheProcess() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["DeliveryTests.QueueBoundTrapTests/testChildReadsOffTheOwningQueue"]
        // No backtrace: the signal is what the test reads, and symbolicating one takes seconds.
        child.environment = ProcessInfo.processInfo.environment
            .merging([Self.childVariable: "1", "SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertTrue(printed.contains("testChildReadsOffTheOwningQueue' started"), "the child did not run: \(printed)")
        XCTAssertEqual(child.terminationReason, .uncaughtSignal, printed)
        XCTAssertEqual(child.terminationStatus, SIGILL, "a Swift trap, not another way to die: \(printed)")
        XCTAssertFalse(printed.contains("read 41"), "the value was read off its queue")
    }
}
