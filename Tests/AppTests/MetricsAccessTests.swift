import GatherCoordinator
@testable import GatherApp
import GatherCertificates
import GatherTransport
import XCTest

/// `/metrics` tells how busy the server is and who is online: loopback may read it, a
/// `--metrics-from` network may, nobody else.
final class MetricsAccessTests: XCTestCase {
    private func routes(readers: [String] = []) -> HTTPRoutes {
        HTTPRoutes(metrics: CoordinatorMetrics(), exports: ExportDocuments(), connections: { 3 },
                   fanOut: { FanOutMetrics.Reading() }, caCertificate: nil,
                   links: ServerLinks(identity: MachineIdentity(hostName: "laptop", ipAddresses: []), host: "127.0.0.1"),
                   metricsReaders: readers.map { AddressRange(cidr: $0)! })
    }

    private func status(_ routes: HTTPRoutes, from address: String) -> Int? {
        routes.respond(to: HTTPRequest(method: "GET", path: "/metrics", query: nil, remoteAddress: address))?.status
    }

    func testLoopbackReadsMetrics() throws {
        let routes = routes()
        for address in ["127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1"] {
            XCTAssertEqual(status(routes, from: address), 200, address)
        }
        let body = try XCTUnwrap(routes.respond(to: HTTPRequest(method: "GET", path: "/metrics", query: nil,
                                                                remoteAddress: "127.0.0.1")))
        XCTAssertTrue(String(decoding: body.body, as: UTF8.self).contains("gather_state_version 0\n"))
        XCTAssertEqual(body.contentType, "text/plain; version=0.0.4; charset=utf-8")
    }

    func testEveryoneElseIsRefusedByDefault() throws {
        let routes = routes()
        for address in ["192.168.1.20", "10.0.0.1", "fd00::1", "::ffff:192.168.1.20", "", "not an address"] {
            XCTAssertEqual(status(routes, from: address), 403, address)
        }
        let refusal = try XCTUnwrap(routes.respond(to: HTTPRequest(method: "GET", path: "/metrics", query: nil,
                                                                   remoteAddress: "192.168.1.20")))
        XCTAssertEqual(String(decoding: refusal.body, as: UTF8.self), "/metrics answers loopback only; see --metrics-from.\n")
    }

    func testMetricsFromAllowsItsNetworkOnly() {
        let routes = routes(readers: ["192.168.1.0/24"])
        XCTAssertEqual(status(routes, from: "192.168.1.20"), 200)
        XCTAssertEqual(status(routes, from: "::ffff:192.168.1.254"), 200, "an IPv4 peer on a dual-stack socket")
        XCTAssertEqual(status(routes, from: "192.168.2.20"), 403)
        XCTAssertEqual(status(routes, from: "127.0.0.1"), 200, "loopback stays allowed")
        let v6 = self.routes(readers: ["fd00::/8"])
        XCTAssertEqual(status(v6, from: "fd12:3456::1"), 200)
        XCTAssertEqual(status(v6, from: "fe80::1"), 403)
        XCTAssertEqual(status(v6, from: "192.168.1.20"), 403)
    }

    func testAddressRangeParsesAndMatchesPrefixes() {
        XCTAssertNil(AddressRange(cidr: "192.168.1.0/33"))
        XCTAssertNil(AddressRange(cidr: "192.168.1/24"))
        XCTAssertNil(AddressRange(cidr: "::/129"))
        XCTAssertNil(AddressRange(cidr: "10.0.0.0/x"))
        let odd = AddressRange(cidr: "10.0.0.0/9")!
        XCTAssertTrue(odd.contains("10.127.255.255"))
        XCTAssertFalse(odd.contains("10.128.0.0"))
        let host = AddressRange(cidr: "192.168.1.7")!
        XCTAssertEqual(host.prefixLength, 32, "a bare address is one host")
        XCTAssertTrue(host.contains("192.168.1.7"))
        XCTAssertFalse(host.contains("192.168.1.8"))
        XCTAssertTrue(AddressRange(cidr: "0.0.0.0/0")!.contains("8.8.8.8"))
    }

    func testOtherRoutesAreNotGuardedAndUnknownPathsFallThrough() {
        let routes = routes()
        XCTAssertEqual(routes.respond(to: HTTPRequest(method: "GET", path: "/healthz", query: nil,
                                                      remoteAddress: "192.168.1.20"))?.status, 200)
        XCTAssertNil(routes.respond(to: HTTPRequest(method: "GET", path: "/index.html", query: nil)),
                     "static files are the Transport's")
        XCTAssertNil(routes.respond(to: HTTPRequest(method: "GET", path: "/ca.pem", query: nil)),
                     "no CA with the operator's own certificate")
    }
}
