import ClubModel
import ClubStore
import Dispatch
import Foundation
import GatherDelivery
import GatherModel
import GatherSecurity
import Logging

/// `/club/live` (`club.v1`): a page says whom it follows (a member's link token or an organiser's
/// token), is answered `following`, then gets `{"type": "changed", "dates": [...]}` whenever a
/// change it may see committed on any instance (the store's `LISTEN`). The page reads what it
/// shows again; nothing else travels here, so a follower learns nothing it could not read.
public final class ClubLive: TransportSource, @unchecked Sendable {
    enum Follower: Equatable {
        case member(String)
        case organiser
    }

    private let store: ClubStore
    private let logger: Logger
    private let queue = DispatchQueue(label: "club.live")
    /// Confined to `queue`.
    private var followers: [ConnectionID: Follower] = [:]
    private var open: Set<ConnectionID> = []
    /// Connections already sent their first frame (the Transport's greeting): later frames are replies.
    private var greeted: Set<ConnectionID> = []
    private let targetLock = NSLock()
    private var target: (any DeliveryTarget)?

    public init(store: ClubStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Where deliveries go; set once the Transport exists.
    public func attach(_ target: any DeliveryTarget) {
        targetLock.lock()
        self.target = target
        targetLock.unlock()
    }

    public func connectionOpened(_ id: ConnectionID, remoteAddress: String, protocol: WireProtocol, door: Door) {
        queue.async { self.open.insert(id) }
    }

    public func connectionClosed(_ id: ConnectionID) {
        queue.async {
            self.open.remove(id)
            self.followers[id] = nil
            self.greeted.remove(id)
        }
    }

    public func received(_ text: String, from id: ConnectionID) {
        queue.async { [self] in
            defer { deliver([.handled(id)]) }
            guard let request = Self.follow(text) else {
                let frame = Self.errorFrame("invalid")
                deliver([reply(id, frame)])
                return
            }
            let follower: Follower?
            do {
                follower = try store.read { transaction -> Follower? in
                    switch request {
                    case .member(let token):
                        guard ClubRoute.token(Substring(token)) != nil,
                              let member = try transaction.member(tokenHash: MemberLinks.hash(token: token)) else { return nil }
                        return .member(member.id)
                    case .organiser(let token):
                        guard token.utf8.count <= 128,
                              try transaction.organiser(tokenHash: Digest.sha256Hex(token), now: try transaction.now()) != nil else {
                            return nil
                        }
                        return .organiser
                    }
                }
            } catch {
                logger.warning("club live: follow not checked", metadata: ["club.error": "\(error)"])
                deliver([reply(id, Self.errorFrame("unavailable"))])
                return
            }
            guard open.contains(id) else { return }
            guard let follower else {
                // Precision 12: the reason, then the socket closed with 1008.
                let frame = Self.errorFrame("unauthorized")
                deliver([reply(id, frame), .close(id, code: 1008, reason: "unauthorized")])
                followers[id] = nil
                return
            }
            followers[id] = follower
            deliver([reply(id, JSONWriter.bytes(["type": "following"]))])
        }
    }

    /// Tells every follower that these dates changed (an empty list: the club's members or
    /// settings). Called for every notification the store's listener receives, from any thread.
    public func datesChanged(_ dates: [String]) {
        queue.async { [self] in
            guard !followers.isEmpty else { return }
            let frame = JSONWriter.bytes(["type": "changed", "dates": .array(dates.map { .string($0) })])
            deliver(followers.keys.sorted { $0.rawValue < $1.rawValue }.map { .send($0, frame) })
        }
    }

    /// A frame for one connection: its greeting the first time, a reply after. On `queue`.
    private func reply(_ id: ConnectionID, _ frame: [UInt8]) -> Delivery {
        greeted.insert(id).inserted ? .greet(id, frame) : .send(id, frame)
    }

    private func deliver(_ deliveries: [Delivery]) {
        targetLock.lock()
        let target = self.target
        targetLock.unlock()
        target?.deliver(deliveries)
    }

    enum FollowRequest: Equatable {
        case member(String)
        case organiser(String)
    }

    /// `{"type": "follow", "member": TOKEN}` or `{"type": "follow", "organiser": TOKEN}`.
    static func follow(_ text: String) -> FollowRequest? {
        guard case .success(let value) = JSONValue.parse(text), value["type"]?.stringValue == "follow" else { return nil }
        if let token = value["member"]?.stringValue, token.utf8.count <= 64 { return .member(token) }
        if let token = value["organiser"]?.stringValue, token.utf8.count <= 128 { return .organiser(token) }
        return nil
    }

    static func errorFrame(_ code: String) -> [UInt8] {
        JSONWriter.bytes(["type": "error", "code": .string(code)])
    }
}
