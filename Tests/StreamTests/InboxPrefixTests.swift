@testable import GatherStream
import XCTest

/// A NATS user's replies and deliveries come to `_INBOX.USER`, which a hub can keep private per user.
final class InboxPrefixTests: XCTestCase {
    func testAUserNameThatIsOneSubjectTokenNamesTheInbox() {
        XCTAssertEqual(NATSEndpoint.inboxPrefix(user: "relay-2"), "_INBOX.relay-2")
        for unusable in ["", "a.b", "a*", "a>", "has space", String(repeating: "r", count: 65), "é"] {
            XCTAssertNil(NATSEndpoint.inboxPrefix(user: unusable), unusable)
        }
    }
}
