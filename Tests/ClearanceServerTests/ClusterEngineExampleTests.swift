import Clearance
import ClearanceChannels
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

// snippet: begin
/// Any publish/subscribe service (Redis, NATS, …): every subscriber gets every text published.
protocol PubSub: Sendable {
    func publish(_ text: String) async throws
    /// The texts published from now on.
    func messages() -> AsyncStream<String>
}

/// A cluster engine on it, written outside the package: the hub decides what nodes say and
/// what it makes of it; the transport only carries each batch as lines, after the sender's id.
final class PubSubTransport: ClusterTransport {
    let nodeID = UUID().uuidString
    private let pubsub: any PubSub
    private let queued: AsyncStream<[ClusterMessage]>
    private let outgoing: AsyncStream<[ClusterMessage]>.Continuation

    init(pubsub: any PubSub) {
        self.pubsub = pubsub
        (queued, outgoing) = AsyncStream.makeStream()
    }

    func run(inbox: ClusterInbox) async throws {
        let incoming = pubsub.messages()  // listening before the hello, to hear the answers
        await inbox.linkEstablished { outgoing.yield($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [nodeID, outgoing] in
                for await text in incoming {
                    let lines = text.split(separator: "\n")
                    guard let sender = lines.first.map(String.init), sender != nodeID else { continue }
                    await inbox.receive(lines.dropFirst().compactMap(ClusterMessage.init(line:)), from: sender) { outgoing.yield($0) }
                }
            }
            for await batch in queued {
                try await pubsub.publish(([nodeID] + batch.map(\.line)).joined(separator: "\n"))
            }
            group.cancelAll()
        }
    }

    func publish(_ messages: [ClusterMessage]) {
        outgoing.yield(messages)
    }

    func shutdown(farewell: [ClusterMessage]) async {
        outgoing.yield(farewell)
        outgoing.finish()
    }
}

// Each node: HubService(configuration: configuration, cluster: ClusterDrivers(transport: PubSubTransport(pubsub: service)))
// snippet: end

/// The cluster engine of Cluster.md ("Writing a cluster engine"), run: two hubs on an in-memory publish/subscribe service.
@Suite("A cluster engine written outside the package", .timeLimit(.minutes(1)))
struct ClusterEngineExampleTests {
    final class Bus: PubSub {
        private let subscribers = Locked([AsyncStream<String>.Continuation]())

        func publish(_ text: String) async throws {
            for subscriber in subscribers.withLock({ $0 }) { subscriber.yield(text) }
        }

        func messages() -> AsyncStream<String> {
            let (stream, continuation) = AsyncStream.makeStream(of: String.self)
            subscribers.withLock { $0.append(continuation) }
            return stream
        }
    }

    @Test func twoHubsOnTheEngineShareEventsAndPresence() async throws {
        let bus = Bus()
        let a = try await TestHub.start(cluster: ClusterDrivers(transport: PubSubTransport(pubsub: bus)))
        let b = try await TestHub.start(cluster: ClusterDrivers(transport: PubSubTransport(pubsub: bus)))
        try await withCleanup {
            let listener = ChannelClient(key: TestHub.key, options: TestHub.options(b.port))
            await listener.connect()
            let news = await listener.subscribe("news")
            let events = news.events
            try await news.subscribed()
            try await eventually("node A counts node B's subscriber") {
                try await TestHTTP(a).signed("GET", "/apps/\(TestHub.appID)/channels/news", query: ["info": "subscription_count"]).json["subscription_count"] as? Int == 1
            }
            try await TestHub.trigger(a, event: "headline", channels: ["news"], data: #"{"n":1}"#)
            let event = try await first(events) { $0.name == "headline" }
            #expect(event.data == #"{"n":1}"#)
            await listener.disconnect()
        } cleanup: {
            await a.stop()
            await b.stop()
        }
    }
}
