import Clearance
import ClearanceSigning
import Logging
extension ChannelClient {
    /// Subscribes `name` on the current socket: at once for public channels, after authorization
    /// for the others.
    func startSubscription(_ name: String) {
        guard let record = records[name], let live = socket, live.established, let ticket = filter.ticket else { return }
        if case .failed(.invalidChannelName) = record.channel.state { return }
        record.channel.setState(.pending)
        guard record.kind.requiresAuthorization else {
            let resume = noteSubscribeSent(name)
            let token = live.token
            enqueueJob { await self.send(OutgoingFrame.subscribe(channel: name, resume: resume), on: token) }
            return
        }
        guard let authorizer = options.authorizer else {
            record.channel.setState(.failed(.authorization(.misconfigured(reason: "the client has no channel authorizer"))))
            return
        }
        let flight = records[name]!.flight(for: ticket)
        enqueueJob { await self.authorizeAndSubscribe(name, ticket: ticket, authorizer: authorizer, flight: flight) }
    }

    /// Authorizes with retries for transient failures, then hands the result to the actor,
    /// which sends it only if the socket is still the one it was made for.
    private nonisolated func authorizeAndSubscribe(
        _ name: String,
        ticket: StaleAuthorizationFilter.Ticket,
        authorizer: any ChannelAuthorizer,
        flight first: SingleFlight<ChannelAuthorization>
    ) async {
        var flight = first
        let retry = options.authorizationRetry
        for attempt in 1...retry.maximumAttempts {
            let current = flight
            let result = await Self.attempt(timeout: options.authorizationTimeout) {
                try await current.run { try await authorizer.authorize(socketID: ticket.socketID, channelName: name) }
            }
            switch result {
            case .cancelled:
                return
            case .success(let authorization):
                return await completeAuthorization(name, ticket: ticket, result: .success(authorization))
            case .failure(let error) where error.isTransient && attempt < retry.maximumAttempts:
                await noteRetry(name, error: error, attempt: attempt)
                if case .timedOut = error {
                    // The timed-out call may still be running: the next attempt must not join it.
                    guard let fresh = await replaceFlight(name, ticket: ticket, stale: flight) else { return }
                    flight = fresh
                }
                do { try await Task.sleep(for: retry.delay(after: attempt)) } catch { return }
            case .failure(let error):
                return await completeAuthorization(name, ticket: ticket, result: .failure(error))
            }
        }
    }

    /// Runs `operation` with a deadline that holds even for an authorizer that ignores
    /// cancellation (see ``Deadline``).
    nonisolated static func attempt<Value: Sendable>(
        timeout: Duration,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async -> AuthorizationAttempt<Value> {
        do {
            let value = try await Deadline.run(timeout, timeoutError: { ChannelAuthorizationError.timedOut(after: timeout) }, operation)
            return .success(value)
        } catch {
            let failure = ChannelAuthorizationError(wrapping: error)
            if Task.isCancelled || failure.code == .cancelled { return .cancelled }
            return .failure(failure)
        }
    }

    private func noteRetry(_ name: String, error: ChannelAuthorizationError, attempt: Int) {
        logger.debug("channels.auth.retry", metadata: ["channel": "\(name)", "code": "\(error.qualifiedCode)", "attempt": "\(attempt)"])
    }

    private func replaceFlight(_ name: String, ticket: StaleAuthorizationFilter.Ticket, stale: SingleFlight<ChannelAuthorization>) -> SingleFlight<ChannelAuthorization>? {
        guard records[name] != nil, filter.current == ticket else { return nil }
        records[name]!.dropFlight(stale)
        return records[name]!.flight(for: ticket)
    }

    /// Sends the authorized subscription, unless the socket changed since it was asked for.
    private func completeAuthorization(_ name: String, ticket: StaleAuthorizationFilter.Ticket, result: Result<ChannelAuthorization, ChannelAuthorizationError>) async {
        guard filter.admit(ticket) else {
            logger.debug("channels.auth.stale", metadata: ["channel": "\(name)", "socketID": "\(ticket.socketID)"])
            return
        }
        guard var record = records[name], let token = socket?.token else { return }
        let authorization: ChannelAuthorization
        switch result.flatMap({ Self.check($0, kind: record.kind) }) {
        case .failure(let error):
            logger.debug("channels.auth.failed", metadata: ["channel": "\(name)", "code": "\(error.qualifiedCode)", "status": "\(error.status.map(String.init) ?? "-")"])
            record.channel.setState(.failed(.authorization(error)))
            return
        case .success(let checked):
            authorization = checked
        }
        if record.kind == .presence, let channelData = authorization.channelData {
            record.myUserID = try? PresenceChannelData(parsing: channelData).userID
        }
        if record.kind.isEncrypted {
            record.sharedSecret = EncryptedPayload.key(fromSharedSecret: authorization.sharedSecret)
        }
        records[name] = record
        let resume = noteSubscribeSent(name)
        await send(OutgoingFrame.subscribe(channel: name, auth: authorization.auth, channelData: authorization.channelData, resume: resume), on: token)
    }

    /// What every authorizer's answer must have for its kind of channel.
    static func check(_ authorization: ChannelAuthorization, kind: ChannelNameKind) -> Result<ChannelAuthorization, ChannelAuthorizationError> {
        switch kind {
        case .presence:
            guard let channelData = authorization.channelData, (try? PresenceChannelData(parsing: channelData)) != nil else {
                return .failure(.missingChannelData)
            }
        case .privateEncrypted:
            guard EncryptedPayload.key(fromSharedSecret: authorization.sharedSecret) != nil else {
                return .failure(.invalidSharedSecret)
            }
        default:
            break
        }
        return .success(authorization)
    }

    // MARK: - Re-authorization after a failed decryption

    /// Re-authorizes an encrypted channel once (shared with any other event failing at the same
    /// time), then retries `frame` with the new shared secret.
    func reauthorizeForDecryption(_ frame: IncomingFrame, channel name: String) {
        guard let ticket = filter.ticket, let authorizer = options.authorizer, records[name] != nil else {
            records[name]?.decryptionRecovery = .spent
            records[name]?.channel.report(.decryptionFailed(event: frame.event, reason: "secretbox authentication failed and the channel cannot be re-authorized now"))
            return
        }
        let flight = records[name]!.flight(for: ticket)
        let timeout = options.authorizationTimeout
        enqueueJob {
            let result = await Self.attempt(timeout: timeout) {
                try await flight.run { try await authorizer.authorize(socketID: ticket.socketID, channelName: name) }
            }
            await self.finishDecryptionReauthorization(frame, channel: name, ticket: ticket, result: result)
        }
    }

    private func finishDecryptionReauthorization(_ frame: IncomingFrame, channel name: String, ticket: StaleAuthorizationFilter.Ticket, result: AuthorizationAttempt<ChannelAuthorization>) {
        guard var record = records[name] else { return }
        let frames = [frame] + record.awaitingKey
        record.awaitingKey = []
        record.decryptionRecovery = .spent
        records[name] = record
        guard filter.admit(ticket) else {
            for frame in frames { record.channel.report(.decryptionFailed(event: frame.event, reason: "the connection changed while re-authorizing")) }
            return
        }
        switch result {
        case .success(let authorization):
            if let key = EncryptedPayload.key(fromSharedSecret: authorization.sharedSecret) {
                record.sharedSecret = key
                records[name]?.sharedSecret = key
            }
            for frame in frames { decryptAndDeliver(frame, record: record, reauthorized: true) }
        case .failure(let error):
            for frame in frames { record.channel.report(.decryptionFailed(event: frame.event, reason: "re-authorization failed (\(error.qualifiedCode))")) }
        case .cancelled:
            break
        }
    }
}
