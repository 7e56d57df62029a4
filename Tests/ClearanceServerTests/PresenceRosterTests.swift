@testable import ClearanceServer
import Testing

@Suite("PresenceRoster")
struct PresenceRosterTests {
    private let alice = PresenceMember(userID: "alice", userInfoJSON: #"{"name":"Alice"}"#)
    private let bob = PresenceMember(userID: "bob", userInfoJSON: nil)

    @Test func countsUsersNotConnections() {
        var roster = PresenceRoster()
        #expect(roster.join(socketID: "1.1", member: alice, limit: 100) == .newMember)
        #expect(roster.join(socketID: "1.2", member: alice, limit: 100) == .additionalConnection)
        #expect(roster.join(socketID: "1.3", member: bob, limit: 100) == .newMember)
        #expect(roster.count == 2)
        #expect(roster.connectionCount == 3)
        #expect(roster.members == [alice, bob])
    }

    @Test func aUserLeavesWithTheirLastConnection() {
        var roster = PresenceRoster()
        _ = roster.join(socketID: "1.1", member: alice, limit: 100)
        _ = roster.join(socketID: "1.2", member: alice, limit: 100)
        #expect(roster.leave(socketID: "1.1") == .connectionLeft)
        #expect(roster.members == [alice])
        #expect(roster.leave(socketID: "1.2") == .memberLeft(userID: "alice"))
        #expect(roster.isEmpty)
        #expect(roster.leave(socketID: "1.2") == .notJoined)
    }

    @Test func theLimitCountsDistinctUsers() {
        var roster = PresenceRoster()
        #expect(roster.join(socketID: "1.1", member: alice, limit: 1) == .newMember)
        #expect(roster.join(socketID: "1.2", member: alice, limit: 1) == .additionalConnection)
        #expect(roster.join(socketID: "1.3", member: bob, limit: 1) == .full)
        #expect(roster.join(socketID: "1.1", member: alice, limit: 1) == .alreadyJoined)
    }

    @Test func theFirstConnectionDecidesTheInfo() {
        var roster = PresenceRoster()
        _ = roster.join(socketID: "1.1", member: alice, limit: 100)
        _ = roster.join(socketID: "1.2", member: PresenceMember(userID: "alice", userInfoJSON: "{}"), limit: 100)
        #expect(roster.members == [alice])
    }
}
