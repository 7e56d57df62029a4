import ClearanceWire
import Clearance
import ClearanceSigning
import Logging

extension ChannelClient {
    /// One text frame from socket `token`.
    func received(_ text: String, on token: UInt64) async {
        guard var live = socket, live.token == token else { return }
        live.monitor.received(at: .now)
        socket = live
        let frame: IncomingFrame
        do {
            frame = try IncomingFrame(parsing: text)
        } catch {
            logger.debug("channels.frame.unreadable", metadata: ["bytes": "\(text.utf8.count)"])
            return
        }
        switch frame.event {
        case "pusher:connection_established":
            await established(frame, on: token)
        case "pusher:ping":
            await send(OutgoingFrame.pong, on: token)
        case "pusher:pong":
            break
        case "pusher:error":
            pusherError(frame)
        case "pusher:signin_success":
            await signInSucceeded(frame, on: token)
        case "pusher_internal:subscription_succeeded":
            subscriptionSucceeded(frame)
        case "pusher:subscription_error":
            subscriptionError(frame)
        case "pusher_internal:member_added":
            memberAdded(frame)
        case "pusher_internal:member_removed":
            memberRemoved(frame)
        case "pusher_internal:watchlist_events":
            watchlistEvents(frame)
        case "pusher_internal:subscription_count":
            subscriptionCount(frame)
        default:
            channelEvent(frame)
        }
    }

    private func established(_ frame: IncomingFrame, on token: UInt64) async {
        guard socket?.established != true else {
            // A hostile or broken server: the socket id of a connection never changes, and
            // re-subscribing every channel on each repeat would be a storm.
            logger.debug("channels.frame.repeatedEstablished")
            return
        }
        guard let established = ConnectionEstablished(frame) else {
            socket?.endCause = .protocolViolation("pusher:connection_established without a valid socket_id")
            return
        }
        socket?.established = true
        socket?.monitor.adopt(serverSeconds: established.activityTimeout)
        let generation = machine.established(socketID: established.socketID, at: .now)
        filter.connected(socketID: established.socketID, generation: generation)
        rateLimiter = ClientEventRateLimiter()
        logger.debug("channels.connected", metadata: ["socketID": "\(established.socketID)"])
        publishState()
        for name in records.keys.sorted() where records[name]?.kind != .serverToUser {
            startSubscription(name)
        }
        startSignInIfWanted()
    }

    private func subscriptionSucceeded(_ frame: IncomingFrame) {
        guard let name = frame.channel, let record = records[name] else { return }
        if record.kind == .presence {
            let members = PresenceMembers(subscriptionData: frame.data, myID: record.myUserID) ?? PresenceMembers(me: nil, members: [:])
            record.channel.roster.replace(with: members)
        }
        let recovery = resumed(frame, record: record)
        record.channel.setState(.subscribed)
        record.channel.deliver(ChannelEvent(name: "pusher:subscription_succeeded", channel: name, data: frame.data))
        if let recovery {
            logger.debug("channels.subscription.resumed", metadata: ["channel": "\(name)", "recovery": "\(recovery)"])
            record.channel.recovered(recovery)
        }
    }

    /// What a `subscription_succeeded` says of the channel's history: the position the app now
    /// stands at and, when it answers a resume, whether the missed events follow. A hub that keeps
    /// no history answers without a position: nothing changes.
    private func resumed(_ frame: IncomingFrame, record: SubscriptionRecord) -> ChannelRecovery? {
        guard let name = frame.channel else { return nil }
        let asked = record.resumedFrom
        records[name]?.resumedFrom = nil
        guard let position = frame.position else {
            // The hub keeps no history of the channel (any more): no position to resume from.
            records[name]?.position = nil
            return nil
        }
        // A cache channel's kept event may follow at the channel's position; a replay never does.
        records[name]?.acceptsEventAtPosition = frame.recovered != true
        switch (asked, frame.recovered) {
        case (let asked?, true?):
            // The missed events follow, from `asked` on: the app's position moves with them.
            records[name]?.position = asked
            return .recovered
        case (let asked?, false?):
            records[name]?.position = position
            if asked.stream != position.stream { return .notRecovered(.historyLost) }
            return .notRecovered(asked.serial > position.serial ? .channelBehind : .eventsNotKept)
        default:
            // A first subscription (or a hub that ignored the resume): events from here on.
            records[name]?.position = position
            return nil
        }
    }

    private func subscriptionError(_ frame: IncomingFrame) {
        let object = frame.dataObject ?? [:]
        let rejection = ServerRejection.subscriptionError(
            type: object["type"]?.stringValue,
            error: object["error"]?.stringValue ?? frame.data,
            status: object["status"]?.intValue
        )
        guard let name = frame.channel, let record = records[name] else {
            serverErrorBox.send(rejection)
            return
        }
        logger.debug("channels.subscription.rejected", metadata: ["channel": "\(name)", "code": "\(rejection.qualifiedCode)"])
        record.channel.setState(.failed(.rejectedByServer(rejection)))
    }

    /// `pusher:error` names no channel on most servers. It is given to the channel it names, or
    /// the one pending channel whose name its message quotes ("Invalid signature: … of
    /// 123.456:private-x …"), or the pending sign-in, or the only pending channel that needed
    /// authorization; otherwise it goes to ``serverErrors``.
    private func pusherError(_ frame: IncomingFrame) {
        let object = frame.dataObject ?? [:]
        let message = object["message"]?.stringValue ?? frame.data ?? ""
        let code = object["code"]?.intValue
        let rejection = ServerRejection.pusherError(code: code, message: message)
        if code == 4301 {
            // A refused client event: the connection stays, no subscription is affected.
            let channel = frame.channel.flatMap { records[$0]?.channel }
            channel?.report(.rejectedByServer(rejection))
            if channel == nil { serverErrorBox.send(rejection) }
            return
        }
        let waiting = records.values.filter { $0.subscribeSent && !$0.channel.state.isSubscribed && $0.kind.requiresAuthorization }
        let target: SubscriptionRecord?
        if let name = frame.channel {
            target = records[name]
        } else if let quoted = waiting.filter({ message.contains($0.channel.name) }).max(by: { $0.channel.name.count < $1.channel.name.count }) {
            target = quoted
        } else if signInState.awaitingServer {
            signInState.fail(.rejectedByServer(rejection))
            return
        } else if waiting.count == 1 {
            target = waiting.first
        } else {
            target = nil
        }
        guard let target else {
            logger.debug("channels.server.error", metadata: ["code": "\(code.map(String.init) ?? "none")"])
            serverErrorBox.send(rejection)
            return
        }
        target.channel.setState(.failed(.rejectedByServer(rejection)))
    }

    private func memberAdded(_ frame: IncomingFrame) {
        guard let name = frame.channel, let record = records[name], let object = frame.dataObject,
              let id = object["user_id"]?.scalarText else { return }
        record.channel.roster.add(PresenceMember(id: id, infoJSON: object["user_info"]?.jsonText))
        record.channel.deliver(ChannelEvent(name: "pusher:member_added", channel: name, data: frame.data))
    }

    private func memberRemoved(_ frame: IncomingFrame) {
        guard let name = frame.channel, let record = records[name], let object = frame.dataObject,
              let id = object["user_id"]?.scalarText else { return }
        record.channel.roster.remove(id: id)
        record.channel.deliver(ChannelEvent(name: "pusher:member_removed", channel: name, data: frame.data))
    }

    /// `pusher_internal:watchlist_events` (connection-level): one ``WatchlistEvent`` per usable entry.
    private func watchlistEvents(_ frame: IncomingFrame) {
        guard let parsed = WatchlistEventsFrame(frame) else {
            malformed(frame, "its data holds no events array")
            return
        }
        for problem in parsed.problems { malformed(frame, problem) }
        for event in parsed.events { watchlistBox.send(event) }
    }

    /// `pusher_internal:subscription_count`: kept on the channel and re-emitted on its events as
    /// `pusher:subscription_count` with normalized data, as pusher-js does.
    private func subscriptionCount(_ frame: IncomingFrame) {
        guard let parsed = SubscriptionCountFrame(frame) else {
            malformed(frame, frame.channel == nil ? "it names no channel" : "its data holds no subscription_count of zero or more")
            return
        }
        guard let record = records[parsed.channel] else { return }
        record.channel.setSubscriptionCount(parsed.count)
        record.channel.deliver(ChannelEvent(
            name: ChannelEvent.subscriptionCount, channel: parsed.channel, data: #"{"subscription_count":\#(parsed.count)}"#))
    }

    /// A server frame the client cannot use: logged (never its data) and dropped; the connection stays.
    private func malformed(_ frame: IncomingFrame, _ problem: String) {
        logger.warning("channels.frame.malformed", metadata: [
            "event": "\(frame.event)", "channel": "\(frame.channel ?? "")", "problem": "\(problem)",
            "bytes": "\(frame.data?.utf8.count ?? 0)",
        ])
    }

    private func channelEvent(_ frame: IncomingFrame) {
        guard let name = frame.channel, let record = records[name] else { return }
        if let position = frame.position {
            let atPosition = record.acceptsEventAtPosition && position == record.position
            records[name]?.acceptsEventAtPosition = false
            // Each event once: one at or before the app's position in the same stream came already
            // (but a cache channel's kept event, right after the subscription).
            if !atPosition, let last = record.position, last.stream == position.stream, position.serial <= last.serial {
                logger.debug("channels.event.repeated", metadata: ["channel": "\(name)", "serial": "\(position.serial)"])
                return
            }
            records[name]?.position = position
        }
        if record.kind.isEncrypted && !frame.event.hasPrefix("pusher:") && !frame.event.hasPrefix("pusher_internal:") {
            decryptAndDeliver(frame, record: record, reauthorized: false)
            return
        }
        record.channel.deliver(ChannelEvent(name: frame.event, channel: name, data: frame.data, userID: frame.userID))
    }

    /// Opens an encrypted event; on failure re-authorizes once (the key may have rotated), then
    /// reports and drops it. One re-authorization per channel at a time (events failing meanwhile
    /// wait for its key), and none again on the socket until an event opened.
    func decryptAndDeliver(_ frame: IncomingFrame, record: SubscriptionRecord, reauthorized: Bool) {
        let name = record.channel.name
        guard let payload = EncryptedPayload(frame.data) else {
            record.channel.report(.decryptionFailed(event: frame.event, reason: "the data is not {nonce, ciphertext} in base64"))
            return
        }
        if let key = record.sharedSecret, let plaintext = try? payload.open(with: key) {
            records[name]?.decryptionRecovery = .ready
            record.channel.deliver(ChannelEvent(name: frame.event, channel: name, data: plaintext, userID: frame.userID))
            return
        }
        guard !reauthorized else {
            logger.debug("channels.decryption.failed", metadata: ["channel": "\(name)", "event": "\(frame.event)"])
            record.channel.report(.decryptionFailed(event: frame.event, reason: "secretbox authentication failed with the current shared secret, also after re-authorizing"))
            return
        }
        switch records[name]?.decryptionRecovery {
        case .ready?:
            records[name]?.decryptionRecovery = .inFlight
            reauthorizeForDecryption(frame, channel: name)
        case .inFlight? where records[name]!.awaitingKey.count < SubscriptionRecord.maximumAwaitingKey:
            records[name]?.awaitingKey.append(frame)
        default:
            logger.debug("channels.decryption.failed", metadata: ["channel": "\(name)", "event": "\(frame.event)"])
            record.channel.report(.decryptionFailed(event: frame.event, reason: "secretbox authentication failed, and the channel was already re-authorized on this connection"))
        }
    }
}
