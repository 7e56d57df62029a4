import Clearance
import ClearanceChannels
import ClearanceSecretBox
import ClearanceSigning
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Testing

@Suite(.serialized) struct LogRedactionTests {
    @Test func signaturesAndSharedSecretsNeverReachTheLogs() async throws {
        try await TestHub.withBox { box in
            let logs = LogCapture()
            let authenticator = try ServerUserAuthenticator(endpoint: box.hub.httpURL.appendingPathComponent("pusher/user-auth"), headers: [.authorization: "Bearer alice-token"])
            let hubAuthorizer = try TestHub.serverAuthorizer(box.hub, token: "alice-token")
            let issued = Locked<[ChannelAuthorization]>([])
            let capturing = CustomChannelAuthorizer { socketID, channel in
                let authorization = try await hubAuthorizer.authorize(socketID: socketID, channelName: channel)
                issued.withLock { $0.append(authorization) }
                return authorization
            }
            var options = TestHub.options(box.hub.port, authorizer: capturing, userAuthenticator: authenticator)
            options.logger = logs.logger("channels")
            let client = ChannelClient(key: TestHub.key, options: options)
            await client.connect()
            let names = ["private-a", "presence-room", "private-encrypted-vault"]
            var channels: [PusherChannel] = []
            for name in names { channels.append(await client.subscribe(name)) }
            for channel in channels { try await channel.subscribed() }
            _ = try await client.signIn()
            let denied = await client.subscribe("private-nope")
            _ = denied
            var secrets: [String] = []
            for authorization in issued.withLock({ $0 }) {
                secrets.append(String(authorization.auth.split(separator: ":")[1]))
                if let sharedSecret = authorization.sharedSecret { secrets.append(sharedSecret) }
            }
            #expect(secrets.count >= 4)
            secrets.append("alice-token")
            await client.disconnect()
            #expect(logs.text.contains("channels.connected"))
            for secret in secrets {
                #expect(!logs.text.contains(secret), "a secret reached the logs")
                #expect(!logs.text.contains(String(secret.prefix(16))), "part of a secret reached the logs")
            }
        }
    }
}
