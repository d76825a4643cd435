import Foundation
import GatherCoordinator
import GatherTransport

/// The dynamic HTTP endpoints of docs/PROTOCOL.md. They run on the Transport's service thread,
/// which also fans out to every phone, so each answer is something already made: locked
/// counters, exports rendered by the Coordinator when a gather ends, files read at start (and
/// the pages' version: a `stat` per file of the pages folder, no read).
struct HTTPRoutes: Sendable {
    let metrics: CoordinatorMetrics
    let exports: ExportDocuments
    let connections: @Sendable () -> Int
    let fanOut: @Sendable () -> FanOutMetrics.Reading
    /// The venue stream's `/healthz` members (`,"nats":…,"publishedVersion":…`) at the venue's version.
    var stream: @Sendable (_ version: Int) -> String = { VenueStream.healthFields(nil, version: $0) }
    /// The venue stream's `/metrics` lines (empty without `--nats`).
    var streamMetrics: @Sendable () -> String = { "" }
    /// The generated CA, read once at start, and its SHA-256 fingerprint; nil with the user's own
    /// certificate.
    let caCertificate: [UInt8]?
    var caFingerprint: String? = nil
    let links: ServerLinks
    /// Who may read `/metrics` besides loopback (`--metrics-from`).
    let metricsReaders: [AddressRange]
    /// The pages folder's version for the service worker (nil: no such endpoint).
    var shell: ShellVersion? = nil

    func respond(to request: HTTPRequest) -> HTTPResponse? {
        switch request.path {
        case "/healthz":
            let reading = metrics.read()
            return json(Array("{\"status\":\"ok\",\"version\":\(reading.version),\"connections\":\(connections())\(stream(reading.version))}".utf8))
        case "/metrics":
            guard mayReadMetrics(from: request.remoteAddress) else {
                return HTTPResponse(status: 403, contentType: "text/plain; charset=utf-8",
                                    body: Array("/metrics answers loopback only; see --metrics-from.\n".utf8))
            }
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                                body: Array((PrometheusText.render(metrics.read(), fanOut: fanOut(), connections: connections())
                                                   + streamMetrics()).utf8))
        case "/api/history.json":
            return json(exports.read().historyJSON)
        case "/api/history.csv":
            return HTTPResponse(status: 200, contentType: "text/csv; charset=utf-8", body: Self.utf8BOM + exports.read().historyCSV,
                                extraHeaders: [("Content-Disposition", "attachment; filename=\"gather-history.csv\"")])
        case "/api/players.json":
            return json(exports.read().playersJSON)
        case "/api/players.csv":
            return HTTPResponse(status: 200, contentType: "text/csv; charset=utf-8", body: Self.utf8BOM + exports.read().playersCSV,
                                extraHeaders: [("Content-Disposition", "attachment; filename=\"gather-players.csv\"")])
        case "/api/tournament.json":
            return json(exports.read().tournamentJSON)
        case "/api/tournaments.json":
            return json(exports.read().tournamentsJSON)
        case "/api/tournament.csv":
            return HTTPResponse(status: 200, contentType: "text/csv; charset=utf-8", body: Self.utf8BOM + exports.read().tournamentCSV,
                                extraHeaders: [("Content-Disposition", "attachment; filename=\"gather-tournament.csv\"")])
        case "/api/tournament.ics":
            return tournamentCalendar(query: request.query)
        case "/qr.svg":
            guard let svg = links.qrCodeSVG(query: request.query) else { return nil }
            return HTTPResponse(status: 200, contentType: "image/svg+xml", body: Array(svg.utf8))
        case "/ca.pem":
            // The type iOS answers with "install a profile" and Android's certificate installer
            // accepts; the name is the one trust.html tells people to look for.
            guard let caCertificate else { return nil }
            return HTTPResponse(status: 200, contentType: "application/x-x509-ca-cert", body: caCertificate,
                                extraHeaders: [("Content-Disposition",
                                                "attachment; filename=\"\(Self.caFileName)\"")])
        case ShellVersion.path:
            return shell?.response()
        case "/api/join.json":
            // What the projector prints beside its QR code, for people whose camera will not scan.
            return json(Array(links.joinJSON.utf8))
        case "/api/trust.json":
            guard caCertificate != nil, let caFingerprint else { return nil }
            return json(Array(Self.trustJSON(fingerprint: caFingerprint).utf8))
        default:
            return nil
        }
    }

    /// Before every CSV download: without it Excel reads the file as the system's legacy code page
    /// and shows "JosÃ© NÃºÃ±ez" for "José Núñez".
    static let utf8BOM: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The file name phones save `/ca.pem` under.
    static let caFileName = "football-gather-live-ca.pem"

    /// What trust.html shows before anyone installs anything: the fingerprint in full and as a
    /// short check, and the name of the file to look for. Hex and a fixed name: nothing to escape.
    static func trustJSON(fingerprint: String) -> String {
        "{\"fingerprint\":\"\(fingerprint.filter { $0.isHexDigit || $0 == ":" })\","
            + "\"shortCheck\":\"\(FingerprintCheck.short(fingerprint))\",\"file\":\"\(caFileName)\"}"
    }

    /// `/api/tournament.ics[?team=ID]`: an unknown team (or a `team` that is not a number) is a 404;
    /// no tournament, an empty calendar.
    func tournamentCalendar(query: String?) -> HTTPResponse {
        var team: Int?
        for pair in (query ?? "").split(separator: "&") where pair.hasPrefix("team=") {
            guard let id = Int(pair.dropFirst(5).prefix(12)), team == nil else { return Self.noSuchTeam }
            team = id
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        guard let body = exports.calendar(team: team, now: now) else { return Self.noSuchTeam }
        return HTTPResponse(status: 200, contentType: "text/calendar; charset=utf-8", body: body,
                            extraHeaders: [("Content-Disposition", "inline; filename=\"tournament.ics\"")])
    }

    static let noSuchTeam = HTTPResponse(status: 404, contentType: "text/plain; charset=utf-8",
                                         body: Array("There is no such team in the tournament.\n".utf8))

    /// Loopback always; other addresses only inside a `--metrics-from` network.
    func mayReadMetrics(from address: String) -> Bool {
        (AddressRange.loopback + metricsReaders).contains { $0.contains(address) }
    }

    private func json(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "application/json; charset=utf-8", body: body)
    }
}
