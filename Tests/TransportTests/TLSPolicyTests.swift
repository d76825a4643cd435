import COpenSSL
@testable import GatherTransport
import XCTest

/// Every OpenSSL call of the TLS policy is checked: a setting OpenSSL refuses stops the server.
final class TLSPolicyTests: XCTestCase {
    func testTheHardenedContextHasEverySetting() throws {
        let context = try XCTUnwrap(SSL_CTX_new(TLS_server_method()))
        defer { SSL_CTX_free(context) }
        XCTAssertNoThrow(try TLSPolicy.harden(context))
        XCTAssertEqual(gather_ssl_ctx_min_proto_version(context), gather_tls1_2_version())
        XCTAssertEqual(gather_ssl_ctx_set_mode(context, 0) & gather_ssl_mode_release_buffers(), gather_ssl_mode_release_buffers())
        XCTAssertEqual(gather_ssl_ctx_session_cache_mode(context), gather_ssl_sess_cache_off())
        XCTAssertEqual(SSL_CTX_get_num_tickets(context), 0)
    }

    func testASettingOpenSSLRefusesIsAnErrorThatNamesIt() throws {
        let context = try XCTUnwrap(SSL_CTX_new(TLS_server_method()))
        defer { SSL_CTX_free(context) }
        XCTAssertThrowsError(try TLSPolicy.harden(context, minimumVersion: 0x7F7F)) { error in
            XCTAssertEqual("\(error)", "OpenSSL refused to set the minimum protocol version to TLS 1.2")
        }
    }
}
