/// `selectFromClubDate` (docs/PROTOCOL.md §21, "Sunday's list, settled" 6): the pitch's gather
/// made from a club date's list the venue holds, as `createGather` with the players in list order.
/// Each confirmed member is linked to a venue player once and keeps that link; each guest is a
/// player to rename later.
extension GatherRules {
    static func selectFromClubDate(_ dateId: String, pitch index: Int, in state: inout GatherState,
                                   _ context: ActionContext) throws {
        let pitch = state.pitches[index]
        guard let list = state.clubDate(dateId) else {
            throw Rejection(.notFound, .notFound, ["date": .text(dateId)],
                            "This server holds no list of the club date \(dateId).")
        }
        guard pitch.gather == nil else {
            throw Rejection(.conflict, .gatherUnderWay, ["pitch": .text(pitch.name)],
                            "A gather is already under way on \(pitch.name); end or cancel it first.")
        }
        var working = state
        var chosen: [Player.ID] = []
        for entry in list.confirmed {
            chosen.append(try member(entry, in: &working, besides: chosen))
            for number in stride(from: 1, through: entry.guests, by: 1) {
                chosen.append(try guest(guestName(of: entry.name, number), in: &working, besides: chosen))
            }
        }
        guard chosen.count >= 2 else {
            throw Rejection(.invalid, .invalid, ["count": .number(chosen.count)],
                            "The list has fewer than two players; select them by hand.")
        }
        try reduce(&working, pitch: index, .createGather(playerIDs: chosen), context)
        working.pitches[index].gather?.clubDate = dateId
        state = working
    }

    /// "NAME's guest N", the name cut so the whole fits a player's name.
    public static func guestName(of name: String, _ number: Int) -> String {
        let suffix = "'s guest \(number)"
        return String(name.prefix(ActionDecoder.nameLength.upperBound - suffix.count)) + suffix
    }

    /// The member's linked player, else the lowest-id unlinked player of the same name (ignoring
    /// case), now linked, else a new linked player.
    private static func member(_ entry: ClubDateList.Entry, in state: inout GatherState, besides chosen: [Player.ID])
        throws -> Player.ID {
        if let linked = state.players.first(where: { $0.memberId == entry.memberId && !chosen.contains($0.id) }) {
            return linked.id
        }
        let name = entry.name.lowercased()
        if let index = state.players.firstIndex(where: {
            $0.memberId == nil && $0.name.lowercased() == name && !chosen.contains($0.id)
        }) {
            state.players[index].memberId = entry.memberId
            return state.players[index].id
        }
        return try newPlayer(String(entry.name.prefix(ActionDecoder.nameLength.upperBound)), memberId: entry.memberId,
                             in: &state)
    }

    /// An unlinked player of exactly this name not chosen yet, else a new one.
    private static func guest(_ name: String, in state: inout GatherState, besides chosen: [Player.ID]) throws -> Player.ID {
        if let reused = state.players.first(where: { $0.memberId == nil && $0.name == name && !chosen.contains($0.id) }) {
            return reused.id
        }
        return try newPlayer(name, memberId: nil, in: &state)
    }

    private static func newPlayer(_ name: String, memberId: String?, in state: inout GatherState) throws -> Player.ID {
        guard state.players.count < GatherState.maximumPlayers else {
            throw Rejection(.outOfRange, .rosterFull, ["max": .number(GatherState.maximumPlayers)],
                            "The roster is full (\(GatherState.maximumPlayers) players); remove someone first.")
        }
        let id = state.nextPlayerID
        state.players.append(Player(id: id, name: name, memberId: memberId))
        state.nextPlayerID += 1
        return id
    }
}
