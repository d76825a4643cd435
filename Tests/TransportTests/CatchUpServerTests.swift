import Foundation
import GatherCertificates
import GatherDelivery
import GatherTransport
import Logging
import XCTest

/// Catching up by patches over the real `LiveServer`: a gather.v2 client that reconnects to
/// `/live?epoch=E&version=V` on the TLS port or the spectator door, as the pages do.
final class CatchUpServerTests: XCTestCase {
    private var folder = ""
    private var caPath = ""
    private var server: LiveServer!
    private var events: RecordingEvents!
    private var ports: ListeningPorts!
    private let epoch = "k3v9-Qx_20261126"

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "catch-up-\(UUID().uuidString)"
        let certificates = try CertificateAuthority.ensure(in: folder + "/certs",
                                                           identity: MachineIdentity(hostName: "pitch-laptop", ipAddresses: []))
        caPath = try XCTUnwrap(certificates.caCertificatePath)
        try FileManager.default.createDirectory(atPath: folder + "/Public", withIntermediateDirectories: true)
        var configuration = TransportConfiguration(
            host: "127.0.0.1", port: 0, certificatePath: certificates.certificatePath,
            privateKeyPath: certificates.privateKeyPath, publicDirectory: folder + "/Public",
            dynamicRoutes: { request in
                HTTPResponse(status: 200, contentType: "text/plain", body: Array((request.query ?? "-").utf8))
            })
        configuration.spectatorPort = 0
        events = RecordingEvents()
        server = LiveServer(configuration: configuration, logger: Logger(label: "test.catch-up"), source: events)
        events.server = server
        ports = try server.start()
        // Versions 1…5 of the epoch: a snapshot, then each version with its patch.
        server.deliver((1...5).map { version in
            .publishState(StateFrames(version: version, v1Snapshot: Array("snapshot \(version)".utf8),
                                      v2Snapshot: Array("v2 snapshot \(version)".utf8),
                                      v2Patch: version == 1 ? nil : Array("patch \(version - 1)→\(version)".utf8),
                                      epoch: epoch))
        })
    }

    override func tearDownWithError() throws {
        server?.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Opens `/live` + `target`'s query as gather.v2 (TLS, or the door) and reads its welcome.
    private func open(_ query: String, door: Door = .tls) throws -> TLSTestClient {
        let client = door == .tls ? try TLSTestClient(port: try XCTUnwrap(ports.tls), caPath: caPath)
            : try TLSTestClient(plainPort: try XCTUnwrap(ports.spectator))
        let request = "GET /live\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: gather.v2\r\n\r\n"
        let response = try client.exchange(request)
        XCTAssertEqual(response.status, 101)
        XCTAssertTrue(try client.readText().hasPrefix("welcome #"))
        return client
    }

    /// Everything the client receives after its welcome, up to the echo of a marker it sends:
    /// the marker's echo comes after whatever state the server had queued for it.
    private func receivedBeforeEcho(_ client: TLSTestClient) throws -> [String] {
        try client.sendText("marker")
        var frames: [String] = []
        for _ in 0..<20 {
            let text = try client.readText()
            if text == "echo marker" { return frames }
            frames.append(text)
        }
        XCTFail("no echo: \(frames)")
        return frames
    }

    func testAClientHoldingAVersionOfTheEpochGetsOnlyThePatchesAfterIt() throws {
        var current = 5
        for door in [Door.tls, .spectator] {
            let client = try open("?epoch=\(epoch)&version=\(current - 2)", door: door)
            XCTAssertEqual(try receivedBeforeEcho(client), ["patch \(current - 2)→\(current - 1)", "patch \(current - 1)→\(current)"],
                           "\(door): no snapshot")
            for _ in 0..<2 {
                current += 1
                server.deliver([.publishState(StateFrames(version: current, v1Snapshot: [],
                                                          v2Snapshot: Array("v2 snapshot \(current)".utf8),
                                                          v2Patch: Array("patch \(current - 1)→\(current)".utf8), epoch: epoch))])
                XCTAssertEqual(try client.readText(), "patch \(current - 1)→\(current)", "then it follows live")
            }
        }
    }

    func testAClientHoldingTheCurrentVersionGetsNothingAfterWelcome() throws {
        let client = try open("?version=5&epoch=\(epoch)")
        XCTAssertEqual(try receivedBeforeEcho(client), [])
    }

    func testAnythingElseGetsTheSnapshotAsWithoutAQuery() throws {
        let queries = [
            "", "?epoch=\(epoch)", "?epoch=\(epoch)&version=3&version=3", "?epoch=another-epoch&version=3",
            "?epoch=\(epoch)&version=-1", "?epoch=\(epoch)&version=9", "?epoch=short&version=3",
            "?epoch=\(epoch)&version=3&pad=" + String(repeating: "p", count: 300),
            "?epoch=\(epoch)&version=3" + String(repeating: "&x=1", count: 8),
        ]
        for query in queries {
            let client = try open(query)
            XCTAssertEqual(try receivedBeforeEcho(client), ["v2 snapshot 5"], query)
        }
    }

    /// lws keeps each parameter apart (a fragment each; `lws_hdr_copy` joins them with `,`), which
    /// is why the handshake reads them one by one.
    func testLWSKeepsEachQueryParameterApart() throws {
        let client = try TLSTestClient(port: try XCTUnwrap(ports.tls), caPath: caPath)
        let answer = try client.exchange("GET /anything?epoch=\(epoch)&version=3&version=4 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Connection: close\r\n\r\n")
        XCTAssertEqual(answer.text, "epoch=\(epoch),version=3,version=4")
    }
}
