import CLibWebSockets
@testable import GatherTransport
import XCTest

/// The C macros we re-export through the shim keep the values libwebsockets 4.1.6 documents.
final class ShimTests: XCTestCase {
    func testHeadroomMatchesLibwebsockets() {
        XCTAssertEqual(gather_lws_pre(), 16, "LWS_PRE is 4 + 10 + 2 padded to 16")
        XCTAssertEqual(SharedFrame.headroom, Int(gather_lws_pre()))
    }

    func testServerOptionsAreDistinctBits() {
        let options = [gather_lws_option_do_ssl_global_init(), gather_lws_option_validate_utf8(),
                       gather_lws_option_disable_ipv6(), gather_lws_option_explicit_vhosts(),
                       gather_lws_option_allow_non_ssl()]
        for option in options { XCTAssertEqual(option.nonzeroBitCount, 1, "\(option)") }
        XCTAssertEqual(Set(options).count, options.count)
        XCTAssertEqual(gather_lws_option_do_ssl_global_init() & gather_lws_option_allow_non_ssl(), 0)
    }

    func testLogLevelsAreTheLibraryMask() {
        XCTAssertEqual(gather_lws_log_err(), 1)
        XCTAssertEqual(gather_lws_log_warn(), 2)
        XCTAssertEqual(gather_lws_log_notice(), 4)
    }

    func testCloseCodesAreRFC6455() {
        XCTAssertEqual(CloseCode.goingAway, UInt16(LWS_CLOSE_STATUS_GOINGAWAY.rawValue))
        XCTAssertEqual(CloseCode.unacceptableData, UInt16(LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE.rawValue))
        XCTAssertEqual(CloseCode.invalidPayload, UInt16(LWS_CLOSE_STATUS_INVALID_PAYLOAD.rawValue))
        XCTAssertEqual(CloseCode.messageTooBig, UInt16(LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE.rawValue))
    }
}
