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
