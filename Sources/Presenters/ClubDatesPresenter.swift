import GatherModel

/// The organisers' `clubDates` (docs/PROTOCOL.md §21): each verified list the venue holds whose
/// date is in the window at the venue's clock (`startsAt < now + 7 days`, `now < startsAt +
/// duration`), as published, with `linked`: each of its members already linked to a player.
public enum ClubDatesPresenter {
    public static func shown(_ lists: [ClubDateList], now: Int64) -> [ClubDateList] {
        lists.filter { $0.isInWindow(now: now) }
    }

    public static func json(_ lists: [ClubDateList], players: [Player], now: Int64) -> JSONValue {
        let byMember = Dictionary(players.compactMap { player in player.memberId.map { ($0, player.id) } },
                                  uniquingKeysWith: min)
        return .array(shown(lists, now: now).map { list in
            func entries(_ entries: [ClubDateList.Entry]) -> JSONValue {
                .array(entries.map { entry in
                    var members: [String: JSONValue] = ["memberId": .string(entry.memberId), "name": .string(entry.name),
                                                        "guests": .int(entry.guests)]
                    if let position = entry.position { members["position"] = .int(position) }
                    if let expiry = entry.offerExpiresAt { members["offerExpiresAt"] = .int(Int(expiry)) }
                    return .object(members)
                })
            }
            var linked: [String: JSONValue] = [:]
            for entry in list.confirmed + list.waiting + list.offered {
                if let player = byMember[entry.memberId] { linked[entry.memberId] = .int(player) }
            }
            return [
                "type": "clubDate", "club": .string(list.club), "date": .string(list.date),
                "startsAt": .int(Int(list.startsAt)), "durationMinutes": .int(list.durationMinutes),
                "title": .string(list.title), "place": .string(list.place), "status": .string(list.status),
                "seq": .int(Int(list.seq)), "confirmed": entries(list.confirmed), "waiting": entries(list.waiting),
                "offered": entries(list.offered), "linked": .object(linked),
            ]
        })
    }
}
