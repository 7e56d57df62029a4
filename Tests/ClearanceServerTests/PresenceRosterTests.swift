@testable import ClearanceServer
import ClearanceSigning
import Testing

@Suite("PresenceRoster")
struct PresenceRosterTests {
    private static let alice = PresenceMember(id: "alice", infoJSON: #"{"name":"Alice"}"#)
    private static let bob = PresenceMember(id: "bob", infoJSON: nil)

    private enum Step {
        case join(String, PresenceMember, limit: Int)
        case leave(String)
    }

    private enum Result: Equatable {
        case joined(PresenceRoster.JoinResult)
        case left(PresenceRoster.LeaveResult)
    }

    private func run(_ steps: [Step]) -> (results: [Result], roster: PresenceRoster) {
        var roster = PresenceRoster()
        let results = steps.map { step -> Result in
            switch step {
            case let .join(socketID, member, limit): .joined(roster.join(socketID: socketID, member: member, limit: limit))
            case let .leave(socketID): .left(roster.leave(socketID: socketID))
            }
        }
        return (results, roster)
    }

    @Test func countsUsersNotConnections() {
        let (results, roster) = run([
            .join("1.1", Self.alice, limit: 100), .join("1.2", Self.alice, limit: 100), .join("1.3", Self.bob, limit: 100),
        ])
        #expect(results == [.joined(.newMember), .joined(.additionalConnection), .joined(.newMember)])
        #expect(roster.count == 2)
        #expect(roster.connectionCount == 3)
        #expect(roster.members == [Self.alice, Self.bob])
    }

    @Test func aUserLeavesWithTheirLastConnection() {
        let (results, roster) = run([
            .join("1.1", Self.alice, limit: 100), .join("1.2", Self.alice, limit: 100),
            .leave("1.1"), .leave("1.2"), .leave("1.2"),
        ])
        #expect(Array(results.dropFirst(2)) == [.left(.connectionLeft), .left(.memberLeft(userID: "alice")), .left(.notJoined)])
        #expect(roster.isEmpty)
    }

    @Test func theLimitCountsDistinctUsers() {
        let (results, _) = run([
            .join("1.1", Self.alice, limit: 1), .join("1.2", Self.alice, limit: 1),
            .join("1.3", Self.bob, limit: 1), .join("1.1", Self.alice, limit: 1),
        ])
        #expect(results == [.joined(.newMember), .joined(.additionalConnection), .joined(.full), .joined(.alreadyJoined)])
    }

    @Test func theFirstConnectionDecidesTheInfo() {
        let (_, roster) = run([
            .join("1.1", Self.alice, limit: 100), .join("1.2", PresenceMember(id: "alice", infoJSON: "{}"), limit: 100),
        ])
        #expect(roster.members == [Self.alice])
    }
}
