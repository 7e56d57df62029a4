/// The user sign-in's progress on the current socket, and who waits for it.
struct SignInState: Sendable {
    /// ``ChannelClient/signIn()`` was called: sign in on every socket from now on.
    var wanted = false
    /// The authenticator is being asked.
    var authenticating = false
    /// `pusher:signin` was sent; no answer yet.
    var awaitingServer = false
    /// The `#server-to-user-<id>` channel, once signed in.
    var userChannel: String?
    /// Signed in on the current socket.
    var signedIn = false
    private var waiters: [UInt64: CheckedContinuation<Result<PusherChannel, ChannelError>, Never>] = [:]

    mutating func addWaiter(_ id: UInt64, _ continuation: CheckedContinuation<Result<PusherChannel, ChannelError>, Never>) {
        waiters[id] = continuation
    }

    mutating func cancelWaiter(_ id: UInt64) {
        waiters.removeValue(forKey: id)?.resume(returning: .failure(.connectionFailed(.notConnected)))
    }

    mutating func succeed(_ channel: PusherChannel) {
        signedIn = true
        awaitingServer = false
        resumeAll(.success(channel))
    }

    mutating func fail(_ error: ChannelError) {
        authenticating = false
        awaitingServer = false
        resumeAll(.failure(error))
    }

    private mutating func resumeAll(_ result: Result<PusherChannel, ChannelError>) {
        let waiting = waiters
        waiters = [:]
        for continuation in waiting.values { continuation.resume(returning: result) }
    }

    mutating func socketEnded() {
        authenticating = false
        awaitingServer = false
        signedIn = false
    }
}
