import ArgumentParser
@testable import GatherApp
import XCTest

/// `--nats` and `--hub` name one NATS server or the nodes of a cluster, comma-separated (libnats
/// then connects to any and moves on when one dies); `gather nats mirror --replicas` keeps that
/// many copies of the mirror. Anything else is refused before anything starts.
final class NATSAddressesTests: XCTestCase {
    private func message(_ arguments: [String]) -> String? {
        do {
            _ = try NATSOptions.parse(arguments)
            return nil
        } catch {
            return NATSOptions.message(for: error)
        }
    }

    func testSeveralAddressesBecomeTheServerList() throws {
        let options = try NATSOptions.parse(["--nats", "nats://10.0.0.1:4222, nats://10.0.0.2:4222,tls://10.0.0.3:4222"])
        let endpoint = try XCTUnwrap(options.endpoint(clientName: "test"))
        XCTAssertEqual(endpoint.urls, ["nats://10.0.0.1:4222", "nats://10.0.0.2:4222", "tls://10.0.0.3:4222"])
        let one = try XCTUnwrap(NATSOptions.parse(["--nats", "nats://127.0.0.1:4222"]).endpoint(clientName: "test"))
        XCTAssertEqual(one.urls, ["nats://127.0.0.1:4222"])
    }

    func testAListWithAnythingButNATSAddressesIsRefused() throws {
        for bad in ["nats://a:1,http://b:2", ",,", "nats://a:1," + String(repeating: "x", count: 1_100),
                    (1...17).map { "nats://10.0.0.\($0):4222" }.joined(separator: ",")] {
            let refused = try XCTUnwrap(message(["--nats", bad]), bad)
            XCTAssertTrue(refused.contains("--nats must be a NATS address"), refused)
            XCTAssertTrue(refused.contains("several separated by commas"), refused)
        }
    }

    func testTheMirrorTakesTheHubsNodesAndHowManyCopiesToKeep() throws {
        let mirror = try NATSMirrorCommand.parse(["--hub", "nats://h1:4222,nats://h2:4222,nats://h3:4222",
                                                  "--venue", "riverside", "--replicas", "3"])
        XCTAssertEqual(mirror.replicas, 3)
        XCTAssertEqual(try NATSMirrorCommand.parse(["--hub", "nats://h1:4222", "--venue", "riverside"]).replicas, 1)
        for replicas in ["0", "6"] {
            XCTAssertThrowsError(try NATSMirrorCommand.parse(["--hub", "nats://h1:4222", "--venue", "riverside",
                                                              "--replicas", replicas])) { error in
                XCTAssertTrue(NATSMirrorCommand.message(for: error).contains("--replicas"))
            }
        }
        XCTAssertThrowsError(try NATSMirrorCommand.parse(["--hub", "http://h1", "--venue", "riverside"])) { error in
            XCTAssertTrue(NATSMirrorCommand.message(for: error).contains("--hub must be a NATS address"))
        }
    }
}
