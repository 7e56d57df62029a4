import Clearance
import ClearanceChannels
import ClearanceServer
import ClearanceTestSupport
import Foundation

/// Records every authorization the client asks for, and forwards it.
final class RecordingAuthorizer: ChannelAuthorizer {
    private let calls = Locked<[(socketID: String, channel: String)]>([])
    let base: any ChannelAuthorizer

    init(_ base: any ChannelAuthorizer) { self.base = base }

    var recorded: [(socketID: String, channel: String)] { calls.withLock { $0 } }

    func authorize(socketID: String, channelName: String) async throws(ChannelAuthorizationError) -> ChannelAuthorization {
        calls.withLock { $0.append((socketID, channelName)) }
        return try await base.authorize(socketID: socketID, channelName: channelName)
    }
}
