@testable import ClearanceServer
import Clearance
import Testing

/// The node sync a transport drives through its ``ClusterInbox``: a node's whole state keeps its
/// place among what the node publishes, and a node forgotten for its silence that comes back is
/// asked for its whole state again.
@Suite("ClusterInbox: node sync")
struct ClusterInboxOrderTests {
    /// A transport that keeps, in order, what its node publishes and what the inbox hands it.
    final class Recorder: ClusterTransport {
        let nodeID: String
        let sent = Locked([[ClusterMessage]]())

        init(nodeID: String) { self.nodeID = nodeID }

        func run(inbox: ClusterInbox) async throws {}
        func publish(_ messages: [ClusterMessage]) { record(messages) }
        func record(_ messages: [ClusterMessage]) { sent.withLock { $0.append(messages) } }
        func shutdown(farewell: [ClusterMessage]) async {}
        var last: [ClusterMessage]? { sent.withLock { $0.last } }
    }

    /// Reads back nothing: the tests look at the channel counts only.
    final class Discard: ConnectionSink {
        func deliver(_ delivery: ConnectionOutbox.Delivery) {}
        func close(_ code: HubCloseCode) {}
        func finish() {}
    }

    /// A node with one connection, subscribed to `channels`, and what it sends.
    static func node(_ id: String, subscribedTo channels: [String]) async -> (HubChannelState, Recorder) {
        let recorder = Recorder(nodeID: id)
        let state = HubChannelState(webhooks: nil, cluster: ClusterDrivers(transport: recorder))
        await state.addConnection(socketID: "\(id).1", appID: "app", outbox: ConnectionOutbox(sink: Discard()))
        for channel in channels { await subscribe(state, id, to: channel) }
        return (state, recorder)
    }

    static func subscribe(_ state: HubChannelState, _ id: String, to channel: String) async {
        _ = await state.subscribe(socketID: "\(id).1", appID: "app", channel: channel, member: nil, maxPresenceMembers: 100)
    }

    /// The closures run on the hub's state, in the step that reads it: nothing the hub
    /// publishes can fall between its whole state and the queueing of it (a change published in
    /// between would go out first, and the older state would undo it at the other nodes).
    @Test func theInboxHandsTheStateToTheTransportInTheStepThatReadsIt() async throws {
        let (a, recorder) = await Self.node("a", subscribedTo: ["news"])
        let inbox = ClusterInbox(state: a)
        await inbox.linkEstablished { messages in
            a.preconditionIsolated("linkEstablished hands the state over on the hub's state")
            recorder.record(messages)
        }
        let first = try #require(recorder.last)
        #expect(first.first == .hello && first.contains(.syncBegin) && first.contains(.syncEnd))
        await inbox.sendWholeState { messages in
            a.preconditionIsolated("sendWholeState hands the state over on the hub's state")
            recorder.record(messages)
        }
        #expect(recorder.last?.first == .syncBegin)
        // A `hello` from another node is answered with the whole state; other messages are not.
        let answers = Locked([[ClusterMessage]]())
        let keep: @Sendable ([ClusterMessage]) -> Void = { messages in
            a.preconditionIsolated("receive answers on the hub's state")
            answers.withLock { $0.append(messages) }
        }
        await inbox.receive([.syncBegin, .syncEnd], from: "b", answer: keep)
        #expect(answers.withLock { $0 }.isEmpty)
        await inbox.receive([.hello], from: "b", answer: keep)
        let answer = try #require(answers.withLock { $0 }.first)
        #expect(answer.first == .syncBegin && answer.contains(.syncEnd))
        let b = HubChannelState(webhooks: nil)
        await b.receive(answer, from: "a") { _ in }
        #expect(await b.channels(appID: "app").map(\.name) == ["news"])
    }

    /// A node whose database writes stalled past the node timeout is forgotten by the others
    /// (its channels leave their counts); when it speaks again, it is asked for its whole state,
    /// and the counts come back.
    @Test func aNodeForgottenForItsSilenceThatSpeaksAgainIsAskedForItsWholeState() async throws {
        let (a, aSent) = await Self.node("a", subscribedTo: ["news"])
        let (b, _) = await Self.node("b", subscribedTo: [])
        await ClusterInbox(state: a).sendWholeState { aSent.record($0) }
        await b.receive(try #require(aSent.last), from: "a") { _ in }
        #expect(await b.channels(appID: "app").map(\.name) == ["news"])

        #expect(await b.forgetNodes(notIn: [], silentFor: .zero) == ["a"])
        #expect(await b.channels(appID: "app").isEmpty)

        // A, unaware, subscribes to one more channel: B learns that change, and asks for the rest.
        await Self.subscribe(a, "a", to: "sport")
        let answers = Locked([[ClusterMessage]]())
        await b.receive(try #require(aSent.last), from: "a") { messages in answers.withLock { $0.append(messages) } }
        let asked = try #require(answers.withLock { $0 }.first)
        #expect(answers.withLock { $0.count } == 1)
        #expect(asked.first == .hello && asked.contains(.syncBegin) && asked.contains(.syncEnd), "a hello, then B's own whole state")
        #expect(await b.channels(appID: "app").map(\.name) == ["sport"])
        // A answers the hello with its whole state, and B counts both channels again.
        await ClusterInbox(state: a).receive([.hello], from: "b") { answer in answers.withLock { $0.append(answer) } }
        await b.receive(try #require(answers.withLock { $0.last }), from: "a") { messages in answers.withLock { $0.append(messages) } }
        #expect(await b.channels(appID: "app").map(\.name).sorted() == ["news", "sport"])
        // Asked once: what A sends next gets no other hello.
        #expect(answers.withLock { $0.count } == 2)
    }

    /// A forgotten node that is back among the live ones without a word (it had nothing to
    /// say) is asked too; one that comes back with its whole state, or its goodbye, is not.
    @Test func aForgottenNodeBackAmongTheLiveOnesIsAskedUnlessItSendsItsState() async throws {
        let (a, aSent) = await Self.node("a", subscribedTo: ["news"])
        let (b, bSent) = await Self.node("b", subscribedTo: [])
        await ClusterInbox(state: a).sendWholeState { aSent.record($0) }
        let state = try #require(aSent.last)
        await b.receive(state, from: "a") { _ in }

        #expect(await b.forgetNodes(notIn: [], silentFor: .zero) == ["a"])
        let published = bSent.sent.withLock { $0.count }
        #expect(await b.forgetNodes(notIn: [], silentFor: .zero).isEmpty)
        #expect(bSent.sent.withLock { $0.count } == published, "still away: nothing asked")
        #expect(await b.forgetNodes(notIn: ["a"], silentFor: .zero).isEmpty)
        #expect(bSent.last?.first == .hello && bSent.last?.contains(.syncEnd) == true)
        #expect(bSent.sent.withLock { $0.count } == published + 1)

        // A answers with its whole state; forgotten again, its first words are its state: no hello.
        await b.receive(state, from: "a") { _ in }
        #expect(await b.forgetNodes(notIn: [], silentFor: .zero) == ["a"])
        let answers = Locked([[ClusterMessage]]())
        await b.receive(state, from: "a") { messages in answers.withLock { $0.append(messages) } }
        #expect(answers.withLock { $0 }.isEmpty)
        #expect(await b.channels(appID: "app").map(\.name) == ["news"])
    }
}
