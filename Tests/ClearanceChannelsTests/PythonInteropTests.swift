import ClearanceChannels
import ClearanceTestSupport
import Foundation
import Testing

@Suite(.serialized) struct PythonInteropTests {
    @Test func officialPythonLibraryEventsReachEveryKindOfChannel() async throws {
        try await TestHub.withBox { box in
            let hub = box.hub
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port, authorizer: try TestHub.serverAuthorizer(hub, token: "alice-token")))
            await client.connect()
            let names = ["news", "private-orders", "presence-room", "private-encrypted-vault"]
            var channels: [PusherChannel] = []
            for name in names { channels.append(await client.subscribe(name)) }
            for channel in channels { try await channel.subscribed() }
            let streams = channels.map { channel in channel.bind(event: "from-python") }
            let received = Task {
                try await withThrowingTaskGroup(of: (String, String?).self) { group in
                    for stream in streams {
                        group.addTask {
                            let event = try await first(stream) { _ in true }
                            return (event.channel, event.data)
                        }
                    }
                    var results: [String: String?] = [:]
                    for try await (channel, data) in group { results[channel] = data }
                    return results
                }
            }
            // Every channel is subscribed (above) and every stream bound before the events are
            // sent: a stream keeps what arrives from when it is made, read or not yet.
            let specs = names.map { #"\#($0)=from-python={"via":"pusher-python","channel":"\#($0)"}"# }
            let run = try await PythonPeer.run("channels_trigger.py", ["127.0.0.1", String(hub.port), TestHub.appID, TestHub.key, TestHub.secret, TestHub.masterKey] + specs)
            #expect(run.status == 0, "python: \(run.stdout) \(run.stderr)")
            let results = try await received.value
            for name in names {
                let data = try #require(results[name] ?? nil, "no event on \(name)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: String])
                #expect(object == ["via": "pusher-python", "channel": name])
            }
            await client.disconnect()
        }
    }
}
