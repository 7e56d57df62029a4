import ClearanceSigning
import Logging

extension ChannelClient {
    /// Signs the connection in as a user (`pusher:signin`) with the options' user authenticator,
    /// and subscribes to the user's `#server-to-user-<id>` channel. The sign-in is repeated on
    /// every reconnect (with the new socket id).
    ///
    /// - Returns: the `#server-to-user-<id>` channel, where events sent to the user arrive.
    /// - Throws: ``ChannelError/authorization(_:)`` when the authenticator failed,
    ///   ``ChannelError/rejectedByServer(_:)`` when the server refused the sign-in.
    public func signIn() async throws(ChannelError) -> PusherChannel {
        guard options.userAuthenticator != nil else {
            throw .authorization(.misconfigured(reason: "the client has no user authenticator"))
        }
        signInState.wanted = true
        if signInState.signedIn, let name = signInState.userChannel, let record = records[name] { return record.channel }
        let id = UInt64.random(in: 1...UInt64.max)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                signInState.addWaiter(id, continuation)
                startSignInIfWanted()
            }
        } onCancel: {
            Task { await self.cancelSignInWaiter(id) }
        }
        return try result.get()
    }

    private func cancelSignInWaiter(_ id: UInt64) {
        signInState.cancelWaiter(id)
    }

    /// Starts the sign-in on the current socket when it is wanted and not under way.
    func startSignInIfWanted() {
        guard signInState.wanted, !signInState.authenticating, !signInState.awaitingServer, !signInState.signedIn,
              socket?.established == true, let ticket = filter.ticket,
              let authenticator = options.userAuthenticator else { return }
        signInState.authenticating = true
        let timeout = options.authorizationTimeout
        let retry = options.authorizationRetry
        enqueueJob {
            var result = AuthorizationAttempt<UserAuthentication>.cancelled
            for attempt in 1...retry.maximumAttempts {
                result = await Self.attempt(timeout: timeout) { try await authenticator.authenticate(socketID: ticket.socketID) }
                guard case .failure(let error) = result, error.isTransient, attempt < retry.maximumAttempts else { break }
                do { try await Task.sleep(for: retry.delay(after: attempt)) } catch { return }
            }
            await self.completeSignIn(ticket: ticket, result: result)
        }
    }

    private func completeSignIn(ticket: StaleAuthorizationFilter.Ticket, result: AuthorizationAttempt<UserAuthentication>) async {
        guard filter.admit(ticket), let token = socket?.token else { return }
        signInState.authenticating = false
        switch result {
        case .cancelled:
            return
        case .failure(let error):
            logger.debug("channels.signin.failed", metadata: ["code": "\(error.qualifiedCode)"])
            signInState.fail(.authorization(error))
        case .success(let authentication):
            signInState.awaitingServer = true
            await send(OutgoingFrame.signIn(auth: authentication.auth, userData: authentication.userData), on: token)
        }
    }

    /// `pusher:signin_success {user_data}`: subscribe to `#server-to-user-<id>`.
    func signInSucceeded(_ frame: IncomingFrame, on token: UInt64) async {
        guard let userData = frame.dataObject?["user_data"]?.stringValue, let user = try? PusherUserData(parsing: userData) else {
            signInState.fail(.rejectedByServer(.pusherError(code: nil, message: "pusher:signin_success without usable user_data")))
            return
        }
        let name = user.serverToUserChannelName
        if let previous = signInState.userChannel, previous != name, let record = records.removeValue(forKey: previous) {
            record.channel.finish()
        }
        signInState.userChannel = name
        let channel = records[name]?.channel ?? {
            let channel = PusherChannel(name: name, client: self)
            records[name] = SubscriptionRecord(channel: channel)
            return channel
        }()
        logger.debug("channels.signin.succeeded")
        let resume = noteSubscribeSent(name)
        await send(OutgoingFrame.subscribe(channel: name, resume: resume), on: token)
        signInState.succeed(channel)
    }
}
