import Foundation
import GatherCoordinator
import GatherModel
import GatherPresenters
import GatherStore
import GatherTransport

/// The dynamic HTTP endpoints of PROTOCOL.md. Runs on the Transport's service thread, so it only
/// reads: locked metrics, the Store's read pool, files.
struct HTTPRoutes: Sendable {
    let store: SQLiteStore
    let metrics: CoordinatorMetrics
    let connections: @Sendable () -> Int
    let fanOut: @Sendable () -> FanOutMetrics.Reading
    let caCertificatePath: String?
    let links: ServerLinks

    func respond(to request: HTTPRequest) -> HTTPResponse? {
        switch request.path {
        case "/healthz":
            let reading = metrics.read()
            return json("{\"status\":\"ok\",\"version\":\(reading.version),\"connections\":\(connections())}")
        case "/metrics":
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                                body: Array(PrometheusText.render(metrics.read(), fanOut: fanOut(), connections: connections()).utf8))
        case "/api/history.json":
            return history { HTTPResponse(status: 200, contentType: "application/json; charset=utf-8",
                                          body: HistoryPresenter.json($0)) }
        case "/api/history.csv":
            return history {
                HTTPResponse(status: 200, contentType: "text/csv; charset=utf-8", body: Array(HistoryExport.csv($0).utf8),
                             extraHeaders: [("Content-Disposition", "attachment; filename=\"gather-history.csv\"")])
            }
        case "/qr.svg":
            let page = request.query == "page=organiser" ? "/organiser.html" : "/"
            guard let svg = links.qrCodeSVG(path: page) else { return nil }
            return HTTPResponse(status: 200, contentType: "image/svg+xml", body: Array(svg.utf8))
        case "/ca.pem":
            guard let caCertificatePath, let pem = FileManager.default.contents(atPath: caCertificatePath) else {
                return nil
            }
            return HTTPResponse(status: 200, contentType: "application/x-pem-file", body: Array(pem),
                                extraHeaders: [("Content-Disposition",
                                                "attachment; filename=\"football-gather-live-ca.pem\"")])
        default:
            return nil
        }
    }

    private func history(_ render: ([HistoryEntry]) -> HTTPResponse) -> HTTPResponse {
        do {
            return render(try store.allHistory())
        } catch {
            return json("{\"error\":\"history could not be read\"}", status: 500)
        }
    }

    private func json(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: Array(text.utf8))
    }
}
