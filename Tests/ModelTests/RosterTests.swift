import GatherModel
import GatherModelTestSupport
import XCTest

/// The roster: adding, editing and removing players, and every field's rules.
final class RosterTests: XCTestCase {
    // MARK: - Adding

    func testAddingPlayersAssignsIncreasingIDsAndKeepsEveryField() {
        let store = GatherTestStore()
        store.send(json: ["kind": "addPlayer", "name": "  Ann  ", "age": 31, "skill": "amateur",
                          "position": "striker", "favouriteTeam": "Arsenal"]) { state in
            state.players = [Player(id: 1, name: "Ann", age: 31, skill: .amateur, position: .striker,
                                    favouriteTeam: "Arsenal")]
            state.nextPlayerID = 2
        }
        store.send(json: ["kind": "addPlayer", "name": "Bob"]) { state in
            state.players.append(Player(id: 2, name: "Bob"))
            state.nextPlayerID = 3
        }
    }

    func testAddingWithNullOptionalFieldsLeavesThemUnset() {
        let store = GatherTestStore()
        store.send(json: ["kind": "addPlayer", "name": "Ann", "age": nil, "skill": nil, "position": nil,
                          "favouriteTeam": nil]) { state in
            state.players = [Player(id: 1, name: "Ann")]
            state.nextPlayerID = 2
        }
    }

    func testARemovedPlayersIDIsNeverReused() {
        let store = GatherTestStore(.roster("Ann", "Bob"))
        store.send(.removePlayer(2)) { state in
            state.players = [Player(id: 1, name: "Ann")]
        }
        store.send(json: ["kind": "addPlayer", "name": "Cid"]) { state in
            state.players.append(Player(id: 3, name: "Cid"))
            state.nextPlayerID = 4
        }
    }

    // MARK: - Field rules

    func testNameMustBeOneToFiftyCharactersAfterTrimming() {
        let store = GatherTestStore()
        store.reject(json: ["kind": "addPlayer"], code: .invalid, messageContains: "name")
        store.reject(json: ["kind": "addPlayer", "name": ""], code: .invalid, messageContains: "1–50")
        store.reject(json: ["kind": "addPlayer", "name": "   "], code: .invalid, messageContains: "1–50")
        store.reject(json: ["kind": "addPlayer", "name": .string(String(repeating: "n", count: 51))],
                     code: .invalid, messageContains: "1–50")
        store.reject(json: ["kind": "addPlayer", "name": 7], code: .invalid)
        store.reject(json: ["kind": "addPlayer", "name": "Ann\u{7}"], code: .invalid, messageContains: "control")
        let longest = String(repeating: "n", count: 50)
        store.send(json: ["kind": "addPlayer", "name": .string(" \(longest) ")]) { state in
            state.players = [Player(id: 1, name: longest)]
            state.nextPlayerID = 2
        }
    }

    func testNameLengthCountsCharactersNotBytes() {
        let store = GatherTestStore()
        let accented = String(repeating: "é", count: 50) // 100 UTF-8 bytes
        store.send(json: ["kind": "addPlayer", "name": .string(accented)]) { state in
            state.players = [Player(id: 1, name: accented)]
            state.nextPlayerID = 2
        }
    }

    func testAgeMustBeAWholeNumberFromOneToNinetyNine() {
        let store = GatherTestStore()
        for bad: JSONValue in [0, 100, -1, .double(31.5), "31", true] {
            store.reject(json: ["kind": "addPlayer", "name": "Ann", "age": bad], code: .invalid,
                         messageContains: "1 to 99")
        }
        store.send(json: ["kind": "addPlayer", "name": "Young", "age": 1]) { state in
            state.players.append(Player(id: 1, name: "Young", age: 1))
            state.nextPlayerID = 2
        }
        store.send(json: ["kind": "addPlayer", "name": "Old", "age": 99]) { state in
            state.players.append(Player(id: 2, name: "Old", age: 99))
            state.nextPlayerID = 3
        }
    }

    func testSkillAndPositionAcceptOnlyTheAppsChoices() {
        let store = GatherTestStore()
        store.reject(json: ["kind": "addPlayer", "name": "Ann", "skill": "legend"], code: .invalid,
                     messageContains: "beginner, amateur or professional")
        store.reject(json: ["kind": "addPlayer", "name": "Ann", "skill": "Amateur"], code: .invalid)
        store.reject(json: ["kind": "addPlayer", "name": "Ann", "position": "keeper"], code: .invalid,
                     messageContains: "goalkeeper")
        store.reject(json: ["kind": "addPlayer", "name": "Ann", "position": 1], code: .invalid)
        for (offset, position) in Position.allCases.enumerated() {
            let skill = Skill.allCases[offset % Skill.allCases.count]
            store.send(json: ["kind": "addPlayer", "name": "P", "skill": .string(skill.rawValue),
                              "position": .string(position.rawValue)]) { state in
                state.players.append(Player(id: offset + 1, name: "P", skill: skill, position: position))
                state.nextPlayerID = offset + 2
            }
        }
    }

    func testFavouriteTeamIsAtMostFiftyCharactersAndBlankMeansNone() {
        let store = GatherTestStore()
        store.reject(json: ["kind": "addPlayer", "name": "Ann", "favouriteTeam": .string(String(repeating: "x", count: 51))],
                     code: .invalid, messageContains: "favourite team")
        store.reject(json: ["kind": "addPlayer", "name": "Ann", "favouriteTeam": 3], code: .invalid)
        store.send(json: ["kind": "addPlayer", "name": "Ann", "favouriteTeam": "   "]) { state in
            state.players = [Player(id: 1, name: "Ann")]
            state.nextPlayerID = 2
        }
        let fifty = String(repeating: "x", count: 50)
        store.send(json: ["kind": "addPlayer", "name": "Bob", "favouriteTeam": .string(fifty)]) { state in
            state.players.append(Player(id: 2, name: "Bob", favouriteTeam: fifty))
            state.nextPlayerID = 3
        }
    }

    // MARK: - Editing

    func testEditingKeepsAbsentFieldsSetsGivenOnesAndClearsNulls() {
        let store = GatherTestStore(GatherState(players: [Player(id: 1, name: "Ann", age: 31, skill: .amateur,
                                                                 position: .striker, favouriteTeam: "Arsenal")],
                                                nextPlayerID: 2))
        store.send(json: ["kind": "editPlayer", "playerId": 1, "age": 32, "favouriteTeam": nil]) { state in
            state.players[0] = Player(id: 1, name: "Ann", age: 32, skill: .amateur, position: .striker)
        }
        store.send(json: ["kind": "editPlayer", "playerId": 1, "name": " Annie ", "skill": nil,
                          "position": "goalkeeper"]) { state in
            state.players[0] = Player(id: 1, name: "Annie", age: 32, position: .goalkeeper)
        }
    }

    func testEditingNeedsAFieldAnExistingPlayerAndANameThatIsNotCleared() {
        let store = GatherTestStore(.roster("Ann"))
        store.reject(json: ["kind": "editPlayer", "playerId": 1], code: .invalid, messageContains: "field")
        store.reject(json: ["kind": "editPlayer", "playerId": 1, "name": nil], code: .invalid)
        store.reject(json: ["kind": "editPlayer", "playerId": 1, "age": 0], code: .invalid)
        store.reject(json: ["kind": "editPlayer", "playerId": 9, "name": "Zed"], code: .notFound,
                     messageContains: "9")
    }

    func testEditingAPlayerInTheGatherKeepsTheirPlace() {
        let store = GatherTestStore.setUpGather()
        store.send(.editPlayer(1, PlayerChanges(name: "Annie"))) { state in
            state.players[0].name = "Annie"
        }
    }

    // MARK: - Removing

    func testRemovingAnUnknownPlayerIsNotFound() {
        let store = GatherTestStore(.roster("Ann"))
        store.reject(.removePlayer(2), code: .notFound)
    }

    func testAPlayerInTheActiveGatherCannotBeRemoved() {
        let store = GatherTestStore.setUpGather()
        store.reject(.removePlayer(1), code: .inUse, messageContains: "Ann")
        store.reject(.removePlayer(3), code: .inUse, messageContains: "Cid") // on the bench counts too
    }

    func testAPlayerTakenOutOfTheGatherCanBeRemoved() {
        let store = GatherTestStore.setUpGather()
        store.send(.assign(3, to: .out)) { state in
            state.gather!.bench = [4]
        }
        store.send(.removePlayer(3)) { state in
            state.players.remove(at: 2)
        }
    }

    func testPlayersStaySortedByID() {
        let store = GatherTestStore(.roster("Ann", "Bob", "Cid"))
        store.send(.removePlayer(2)) { state in
            state.players = [Player(id: 1, name: "Ann"), Player(id: 3, name: "Cid")]
        }
        store.send(.addPlayer(PlayerChanges(name: "Dan"))) { state in
            state.players.append(Player(id: 4, name: "Dan"))
            state.nextPlayerID = 5
        }
        XCTAssertEqual(store.state.players.map(\.id), [1, 3, 4])
    }
}
