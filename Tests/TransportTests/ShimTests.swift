import CLibWebSockets
@testable import GatherTransport
import XCTest

/// The C macros we re-export through the shim keep the values libwebsockets 4.1.6 documents.
final class ShimTests: XCTestCase {
    func testHeadroomMatchesLibwebsockets() {
        XCTAssertEqual(gather_lws_pre(), 16, "LWS_PRE is 4 + 10 + 2 padded to 16")
        XCTAssertEqual(SharedFrame.headroom, Int(gather_lws_pre()))
    }

    func testServerOptionsHaveLibwebsockets416Values() {
        XCTAssertEqual(gather_lws_option_disable_ipv6(), 1 << 5)
        XCTAssertEqual(gather_lws_option_validate_utf8(), 1 << 8)
        XCTAssertEqual(gather_lws_option_do_ssl_global_init(), 1 << 12)
        XCTAssertEqual(gather_lws_option_explicit_vhosts(), 1 << 13)
        XCTAssertEqual(gather_lws_option_allow_non_ssl(), (1 << 3) | (1 << 12), "the macro is an expression: a shim is needed")
    }

    func testTheServerNeverAcceptsPlainHTTPOnItsTLSPort() {
        let plainHTTPBit: UInt64 = 1 << 3
        for host in ["0.0.0.0", "127.0.0.1", "::", "::1", "localhost"] {
            let options = ServiceLoop.vhostOptions(host: host)
            XCTAssertEqual(options & plainHTTPBit, 0, host)
            XCTAssertEqual(options & gather_lws_option_validate_utf8(), gather_lws_option_validate_utf8(), host)
        }
        XCTAssertNotEqual(ServiceLoop.vhostOptions(host: "0.0.0.0") & gather_lws_option_disable_ipv6(), 0)
        XCTAssertEqual(ServiceLoop.vhostOptions(host: "::") & gather_lws_option_disable_ipv6(), 0)
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
