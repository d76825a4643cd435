import ClubCoordinator
import Foundation
import GatherTransport

/// The club's HTTP besides its API: the member's page for every `/club/m/TOKEN` (one static file:
/// the page reads its token from the address, so the server does no work for a guessed one),
/// `/healthz`, and the pages' version. Runs on the service thread: answers are read once at start.
struct ClubRoutes: Sendable {
    let memberPage: [UInt8]?
    let publicURL: String?
    let shell: ShellVersion
    /// More `/healthz` members, each starting with a comma (the venue's results, when followed).
    let health: @Sendable () -> String

    init(publicDirectory: String, publicURL: String?, shell: ShellVersion, health: @escaping @Sendable () -> String = { "" }) {
        self.publicURL = publicURL
        self.health = health
        let path = URL(fileURLWithPath: publicDirectory).appendingPathComponent("club/member.html").path
        memberPage = FileManager.default.contents(atPath: path).map { Array($0) }
        self.shell = shell
    }

    func respond(to request: HTTPRequest) -> HTTPResponse? {
        if request.path == ShellVersion.path { return shell.response() }
        if request.path == "/healthz" {
            return HTTPResponse(status: 200, contentType: "application/json; charset=utf-8",
                                body: Array("{\"status\":\"ok\",\"club\":true\(health())}".utf8))
        }
        if request.path == "/" {
            return HTTPResponse(status: 302, contentType: "text/plain; charset=utf-8", body: Array("/club/\n".utf8),
                                extraHeaders: [("Location", "/club/")])
        }
        if request.path == "/qr.svg" { return memberLinkQRCode(request) }
        let prefix = ClubRoute.memberPagePrefix
        if request.path.hasPrefix(prefix), let memberPage {
            let rest = request.path.dropFirst(prefix.count)
            guard !rest.isEmpty, !rest.contains("/") else { return nil }
            return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: memberPage,
                                extraHeaders: [("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")])
        }
        return nil
    }

    /// `/qr.svg?text=LINK`: a QR code of a member's link on this club's own address only (what
    /// the organisers' page shows beside the link it already has), so the route draws nothing else.
    func memberLinkQRCode(_ request: HTTPRequest) -> HTTPResponse? {
        guard let query = request.query, query.hasPrefix("text="), query.utf8.count <= 600,
              let link = String(query.dropFirst(5)).removingPercentEncoding, link.utf8.count <= 300 else { return nil }
        let host = request.headers["host"] ?? ""
        let bases = [publicURL, "http://\(host)", "https://\(host)"].compactMap { $0 }
        guard bases.contains(where: { link.hasPrefix($0 + ClubRoute.memberPagePrefix) }),
              ClubRoute.token(Substring(link.split(separator: "/").last ?? "")) != nil,
              let svg = QRCode.svg(for: link) else { return nil }
        return HTTPResponse(status: 200, contentType: "image/svg+xml", body: Array(svg.utf8),
                            extraHeaders: [("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")])
    }

    /// The member's calendar, answered from the database beside the API.
    static func isCalendar(_ path: String) -> Bool {
        path.hasPrefix(ClubRoute.memberPagePrefix) && path.hasSuffix("/calendar.ics") && path.utf8.count <= 64
    }

    static func clubRequest(_ request: HTTPRequest) -> ClubRequest {
        ClubRequest(method: request.method, path: request.path, query: request.query, headers: request.headers,
                    body: request.body, remoteAddress: request.remoteAddress)
    }
}
