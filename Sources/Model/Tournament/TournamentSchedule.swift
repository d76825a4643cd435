/// The round robin and the slot schedule (docs/PROTOCOL.md "The schedule"), made once at
/// creation: every match of the day, group and knockout, with its slot, pitch and id.
public enum TournamentSchedule {
    /// Two teams of a group that meet; `home` is the higher seed.
    public struct Pairing: Equatable, Sendable {
        public var group: Int
        public var home: TournamentTeam.ID
        public var away: TournamentTeam.ID
    }

    /// Team number *i* (0-based, in seeding order) goes to group *i mod groups*; ids are *i* + 1.
    public static func groupTeams(teamCount: Int, groups: Int) -> [[TournamentTeam.ID]] {
        (0..<groups).map { group in stride(from: group, to: teamCount, by: groups).map { $0 + 1 } }
    }

    /// The circle method: `teams.count − 1` rounds (one more with an odd count, each team resting
    /// once), each a set of pairs no team is in twice; together every pair exactly once. The
    /// higher seed (the smaller id) is home.
    public static func roundRobin(_ teams: [TournamentTeam.ID], group: Int = 0) -> [[Pairing]] {
        guard teams.count >= 2 else { return [] }
        let circle: [TournamentTeam.ID?] = teams.map(Optional.some) + (teams.count.isMultiple(of: 2) ? [] : [nil])
        let size = circle.count
        // Round r: the first team stays, the others turn r places; position i meets size − 1 − i.
        func place(_ position: Int, round: Int) -> TournamentTeam.ID? {
            position == 0 ? circle[0] : circle[1 + (position - 1 + round) % (size - 1)]
        }
        return (0..<(size - 1)).map { round in
            (0..<(size / 2)).compactMap { index -> Pairing? in
                guard let first = place(index, round: round), let second = place(size - 1 - index, round: round) else { return nil }
                return Pairing(group: group, home: min(first, second), away: max(first, second))
            }
        }
    }

    /// The group stage in slots: each inner array is one slot's pairings in pitch order (at most
    /// `pitchCount`, no team twice). Round after round of every group, interleaved, each slot
    /// filled greedily from the earliest pairing whose teams are both free in it.
    public static func groupSlots(groups: [[TournamentTeam.ID]], pitchCount: Int) -> [[Pairing]] {
        precondition(pitchCount >= 1)
        let rounds = groups.enumerated().map { roundRobin($0.element, group: $0.offset) }
        var pending: [Pairing] = []
        let roundCount = rounds.map(\.count).max() ?? 0
        for round in 0..<roundCount {
            let widest = rounds.map { round < $0.count ? $0[round].count : 0 }.max() ?? 0
            for index in 0..<widest {
                for group in rounds where round < group.count && index < group[round].count {
                    pending.append(group[round][index])
                }
            }
        }
        var slots: [[Pairing]] = []
        var placed = [Bool](repeating: false, count: pending.count)
        var first = 0
        var playing = Set<TournamentTeam.ID>()
        while first < pending.count {
            var slot: [Pairing] = []
            playing.removeAll(keepingCapacity: true)
            for index in first..<pending.count where !placed[index] {
                let pairing = pending[index]
                guard !playing.contains(pairing.home), !playing.contains(pairing.away) else { continue }
                slot.append(pairing)
                placed[index] = true
                playing.insert(pairing.home)
                playing.insert(pairing.away)
                if slot.count == pitchCount { break }
            }
            while first < pending.count, placed[first] { first += 1 }
            slots.append(slot)
        }
        return slots
    }

    /// The contract's bound on the group stage: ⌈group matches ÷ pitches⌉ + the largest group's size.
    public static func groupSlotBound(groups: [[TournamentTeam.ID]], pitchCount: Int) -> Int {
        let matches = groups.reduce(0) { $0 + $1.count * ($1.count - 1) / 2 }
        return (matches + pitchCount - 1) / pitchCount + (groups.map(\.count).max() ?? 0)
    }

    /// Every match of the tournament, sorted by id: the group stage, then the knockout rounds one
    /// after another (a round wider than the pitches takes several slots), the third-place match
    /// in the slot before the final.
    public static func matches(teamCount: Int, groupCount: Int, settings: TournamentSettings) -> [TournamentMatch] {
        let groups = groupTeams(teamCount: teamCount, groups: groupCount)
        let pitches = settings.pitches
        var matches: [TournamentMatch] = []
        func add(_ stage: TournamentStage, slot: Int, pitchIndex: Int, group: String? = nil, home: Int? = nil,
                 away: Int? = nil, homeFrom: PlaceSource? = nil, awayFrom: PlaceSource? = nil) -> TournamentMatch.ID {
            let id = matches.count + 1
            matches.append(TournamentMatch(id: id, stage: stage, group: group, home: home, away: away, homeFrom: homeFrom,
                                           awayFrom: awayFrom, pitch: pitches[pitchIndex], slot: slot,
                                           plannedAt: settings.plannedAt(slot: slot)))
            return id
        }
        let groupStage = groupSlots(groups: groups, pitchCount: pitches.count)
        for (slot, pairings) in groupStage.enumerated() {
            for (pitchIndex, pairing) in pairings.enumerated() {
                _ = add(.group, slot: slot, pitchIndex: pitchIndex, group: TournamentGroup.name(index: pairing.group),
                        home: pairing.home, away: pairing.away)
            }
        }
        var slot = groupStage.count
        /// Places a round of `places` pairs over as many slots as it needs, returning the ids.
        func round(_ stage: TournamentStage, _ places: [(PlaceSource, PlaceSource)]) -> [TournamentMatch.ID] {
            let ids = places.enumerated().map { index, place in
                add(stage, slot: slot + index / pitches.count, pitchIndex: index % pitches.count,
                    homeFrom: place.0, awayFrom: place.1)
            }
            slot += (places.count + pitches.count - 1) / pitches.count
            return ids
        }
        let firstRound = TournamentBracket.firstRound(groupCount: groupCount, advance: settings.advance)
        var previous = round(.knockoutRound(matches: firstRound.count), firstRound)
        while previous.count > 1 {
            let winners = stride(from: 0, to: previous.count, by: 2).map {
                (PlaceSource.winner(previous[$0]), PlaceSource.winner(previous[$0 + 1]))
            }
            if winners.count == 1, settings.thirdPlace {
                _ = round(.thirdPlace, [(.loser(previous[0]), .loser(previous[1]))])
            }
            previous = round(.knockoutRound(matches: winners.count), winners)
        }
        return matches
    }
}

/// The knockout's seeding and bracket (docs/PROTOCOL.md "The knockout").
public enum TournamentBracket {
    /// `order(2) = [1, 2]`; `order(2k)` = each *s* of `order(k)` followed by `2k + 1 − s`. Seeds 1
    /// and 2 can meet only in the final, 1–4 only from the semi-finals on, and so on.
    public static func order(_ count: Int) -> [Int] {
        precondition(count >= 2 && count & (count - 1) == 0, "a bracket has a power of two places")
        var order = [1, 2]
        while order.count < count {
            let size = order.count * 2
            order = order.flatMap { [$0, size + 1 - $0] }
        }
        return order
    }

    /// The first knockout round's places, in match-id order. With exactly two through from each of
    /// an even number of groups, the crossed pairing (docs/PROTOCOL.md "Knockout seeding"): each
    /// pair of neighbouring groups X, Y gives X1–Y2 in the first half and Y1–X2 in the second, so
    /// a group's two teams can meet again only in the final or the third-place match. Every other
    /// set-up: consecutive pairs of `order(K)` over `seeds`.
    public static func firstRound(groupCount: Int, advance: Int) -> [(PlaceSource, PlaceSource)] {
        if advance == 2, groupCount >= 2, groupCount.isMultiple(of: 2) {
            let pairs = stride(from: 0, to: groupCount, by: 2).map {
                (TournamentGroup.name(index: $0), TournamentGroup.name(index: $0 + 1))
            }
            return pairs.map { (PlaceSource.group($0.0, rank: 1), PlaceSource.group($0.1, rank: 2)) }
                + pairs.map { (PlaceSource.group($0.1, rank: 1), PlaceSource.group($0.0, rank: 2)) }
        }
        let seeds = seeds(groupCount: groupCount, advance: advance)
        let order = order(seeds.count)
        return stride(from: 0, to: order.count, by: 2).map { (seeds[order[$0] - 1], seeds[order[$0 + 1] - 1]) }
    }

    /// Who goes through, best seed first: every group's winner (A's, B's, …), then every
    /// runner-up in group order, and so on.
    public static func seeds(groupCount: Int, advance: Int) -> [PlaceSource] {
        (1...advance).flatMap { rank in
            (0..<groupCount).map { PlaceSource.group(TournamentGroup.name(index: $0), rank: rank) }
        }
    }
}
