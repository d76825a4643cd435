@testable import GatherApp
import GatherCertificates
import XCTest

/// What each QR code leads to: spectators to the plain-HTTP door (nothing to install), a pitch's
/// code to that pitch, co-organisers to the trust steps on the door, which lead on to TLS.
final class QRTargetTests: XCTestCase {
    private let laptop = MachineIdentity(hostName: "laptop", ipAddresses: ["192.168.1.20", "fd00::20"])

    private func links(host: String = "0.0.0.0", tls: Int = 8443, door: Int? = 8080, localCA: Bool = true) -> ServerLinks {
        let links = ServerLinks(identity: laptop, host: host, hasTrustPage: localCA)
        links.bind(tlsPort: tls, spectatorPort: door)
        return links
    }

    /// The text a QR code encodes, read back from the modules libqrencode drew.
    private func svg(_ links: ServerLinks, _ query: String?) -> String? { links.qrCodeSVG(query: query) }

    func testQueriesChooseTheTarget() {
        XCTAssertEqual(ServerLinks.qrTarget(query: nil), .spectator(pitch: nil))
        XCTAssertEqual(ServerLinks.qrTarget(query: "pitch=2"), .spectator(pitch: 2))
        XCTAssertEqual(ServerLinks.qrTarget(query: "page=organiser"), .organiser)
        XCTAssertEqual(ServerLinks.qrTarget(query: "x=1&page=organiser"), .organiser)
        XCTAssertEqual(ServerLinks.qrTarget(query: "pitch=0"), .spectator(pitch: nil), "pitches start at 1")
        XCTAssertEqual(ServerLinks.qrTarget(query: "pitch=10000"), .spectator(pitch: nil))
        XCTAssertEqual(ServerLinks.qrTarget(query: "pitch=two"), .spectator(pitch: nil))
        XCTAssertEqual(ServerLinks.qrTarget(query: "page=admin"), .spectator(pitch: nil))
    }

    func testSpectatorsGoToThePlainDoorAndCoOrganisersToTheTrustStepsThere() {
        let links = links()
        XCTAssertEqual(links.url(of: .spectator(pitch: nil)), "http://192.168.1.20:8080/")
        XCTAssertEqual(links.url(of: .spectator(pitch: 3)), "http://192.168.1.20:8080/?pitch=3")
        XCTAssertEqual(links.url(of: .organiser), "http://192.168.1.20:8080/trust.html",
                       "no certificate warning as a new co-organiser's first sight")
        XCTAssertEqual(links.organiserURL, "https://192.168.1.20:8443/organiser.html", "logging in is always TLS")
    }

    func testWithTheOperatorsOwnCertificateTheInviteIsTheOrganiserPage() {
        XCTAssertEqual(links(localCA: false).url(of: .organiser), "https://192.168.1.20:8443/organiser.html")
    }

    func testWithoutADoorEverythingIsTLS() {
        let links = links(door: nil)
        XCTAssertEqual(links.url(of: .spectator(pitch: nil)), "https://192.168.1.20:8443/")
        XCTAssertEqual(links.url(of: .organiser), "https://192.168.1.20:8443/trust.html")
    }

    func testLANAddressesComeFirstAndIPv6IsBracketed() {
        XCTAssertEqual(links().hosts, ["192.168.1.20", "laptop.local", "127.0.0.1"], "0.0.0.0 is IPv4 only")
        let dual = links(host: "::")
        XCTAssertEqual(dual.hosts, ["192.168.1.20", "fd00::20", "laptop.local", "::1"])
        XCTAssertEqual(links(host: "fd00::20").organiserURL, "https://[fd00::20]:8443/organiser.html")
        XCTAssertEqual(links(host: "fd00::20").url(of: .organiser), "http://[fd00::20]:8080/trust.html")
    }

    func testTheSVGEncodesTheTargetAndDiffersPerTarget() throws {
        let links = links()
        let spectator = try XCTUnwrap(svg(links, nil))
        let pitch = try XCTUnwrap(svg(links, "pitch=2"))
        let organiser = try XCTUnwrap(svg(links, "page=organiser"))
        XCTAssertTrue(spectator.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        XCTAssertEqual(spectator, QRCode.svg(for: "http://192.168.1.20:8080/"))
        XCTAssertEqual(pitch, QRCode.svg(for: "http://192.168.1.20:8080/?pitch=2"))
        XCTAssertEqual(organiser, QRCode.svg(for: "http://192.168.1.20:8080/trust.html"))
        XCTAssertNotEqual(spectator, organiser)
        links.bind(tlsPort: 9443, spectatorPort: 9080)
        XCTAssertEqual(svg(links, nil), QRCode.svg(for: "http://192.168.1.20:9080/"), "a new port draws a new code")
    }

    /// Release 3: the Group tab's code carries the invite code after '#', so a person who scans it
    /// finds it filled in; only a well-formed code is drawn. It starts at the trust steps on the
    /// door (issue 23), which hand the code on to the organiser page.
    func testAnInviteCodeQRLeadsToTheTrustStepsWithTheCode() throws {
        XCTAssertEqual(ServerLinks.qrTarget(query: "invite=KEEPME12"), .organiserInvite("KEEPME12"))
        XCTAssertEqual(ServerLinks.qrTarget(query: "invite=short"), .spectator(pitch: nil), "8–64 characters")
        XCTAssertEqual(ServerLinks.qrTarget(query: "invite=BAD%20CODE1"), .spectator(pitch: nil))
        XCTAssertEqual(ServerLinks.qrTarget(query: "invite=" + String(repeating: "A", count: 65)), .spectator(pitch: nil))
        let links = links()
        XCTAssertEqual(links.url(of: .organiserInvite("KEEPME12")), "http://192.168.1.20:8080/trust.html#invite=KEEPME12")
        XCTAssertEqual(svg(links, "invite=KEEPME12"),
                       QRCode.svg(for: "http://192.168.1.20:8080/trust.html#invite=KEEPME12"))
        XCTAssertEqual(self.links(localCA: false).url(of: .organiserInvite("KEEPME12")),
                       "https://192.168.1.20:8443/organiser.html#invite=KEEPME12", "nothing to trust: straight to the page")
        XCTAssertNotEqual(svg(links, "invite=KEEPME12"), svg(links, "invite=ROTATED9"))
    }

    /// A referee's link: like the invite, the trust steps on the door first, which hand the code on
    /// to the organiser page's one-pitch view; only a well-formed code is drawn, and none is kept.
    func testARefereeLinksQRLeadsToTheTrustStepsWithItsCode() throws {
        let code = "q3Zp8Xv1Lk2Mn4Bb6Cc7Dd"
        XCTAssertEqual(ServerLinks.qrTarget(query: "referee=" + code), .referee(code))
        XCTAssertEqual(ServerLinks.qrTarget(query: "referee=short"), .spectator(pitch: nil), "16–64 characters")
        XCTAssertEqual(ServerLinks.qrTarget(query: "referee=q3Zp8Xv1Lk2Mn4Bb%2F7Dd"), .spectator(pitch: nil), "base64url only")
        XCTAssertEqual(ServerLinks.qrTarget(query: "referee=" + String(repeating: "A", count: 65)), .spectator(pitch: nil))
        let links = links()
        XCTAssertEqual(links.url(of: .referee(code)), "http://192.168.1.20:8080/trust.html#referee=" + code)
        XCTAssertEqual(svg(links, "referee=" + code), QRCode.svg(for: "http://192.168.1.20:8080/trust.html#referee=" + code))
        XCTAssertEqual(self.links(localCA: false).url(of: .referee(code)),
                       "https://192.168.1.20:8443/organiser.html#referee=" + code, "nothing to trust: straight to the page")
        XCTAssertNotEqual(svg(links, "referee=" + code), svg(links, "referee=Q3Zp8Xv1Lk2Mn4Bb6Cc7Dd"))
    }

    /// A tournament's team: the spectator page following it, on the plain door; ids are 1–64.
    func testATeamsQRFollowsThatTeam() throws {
        XCTAssertEqual(ServerLinks.qrTarget(query: "team=7"), .team(7))
        XCTAssertEqual(ServerLinks.qrTarget(query: "team=0"), .spectator(pitch: nil), "teams start at 1")
        XCTAssertEqual(ServerLinks.qrTarget(query: "team=65"), .spectator(pitch: nil), "at most 64 teams")
        XCTAssertEqual(ServerLinks.qrTarget(query: "team=x"), .spectator(pitch: nil))
        let links = links()
        XCTAssertEqual(links.url(of: .team(7)), "http://192.168.1.20:8080/?team=7")
        XCTAssertEqual(svg(links, "team=7"), QRCode.svg(for: "http://192.168.1.20:8080/?team=7"))
    }

    func testQRModulesAreASquareCode() throws {
        let modules = try XCTUnwrap(QRCode.modules(for: "http://192.168.1.20:8080/"))
        XCTAssertEqual(modules.count, modules[0].count)
        XCTAssertEqual((modules.count - 17) % 4, 0, "QR versions are 21, 25, 29… modules wide")
        XCTAssertTrue(modules[0][0] && modules[0][6] && modules[6][0], "a finder pattern in the corner")
    }
}
