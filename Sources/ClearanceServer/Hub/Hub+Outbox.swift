import ClearanceWire

/// Events apps publish from their own database transactions (``ClusterOutbox``): each goes
/// through the rules of `POST /apps/{id}/events` (its app, name, channels, data, the app's rate),
/// then to the same subscribers, with serials on channels with a history.
extension Hub {
    /// Delivers the cluster outbox's events until cancelled; returns at once without one.
    func runOutbox() async {
        guard let outbox = channels.cluster?.outbox else { return }
        await outbox.run { [weak self] event in
            guard let self else { return .retryLater }
            return await self.publishFromOutbox(event)
        }
    }

    /// Checks `event` as the HTTP API checks an event and delivers it; a bad one is rejected
    /// (counted and logged), one its app may not send yet waits.
    func publishFromOutbox(_ event: OutboxEvent) async -> OutboxOutcome {
        let outcome = await deliver(event)
        if case let .rejected(reason) = outcome {
            counters.increment(.outboxRejected)
            logger.warning("hub.outbox.rejected", metadata: ["app_id": "\(event.appID)", "id": "\(event.id)", "reason": "\(reason)"])
        }
        return outcome
    }

    private func deliver(_ row: OutboxEvent) async -> OutboxOutcome {
        guard let app = apps.byID[row.appID] else { return .rejected(reason: "no app has the id '\(row.appID)'.") }
        guard app.configuration.enabled else { return .rejected(reason: "the app is disabled on this hub.") }
        var members: [String: JSONValue] = [
            "name": .string(row.name), "channels": .array(row.channels.map(JSONValue.string)), "data": .string(row.data),
        ]
        if let socketID = row.socketID { members["socket_id"] = .string(socketID) }
        let event: TriggerEvent
        do {
            event = try TriggerEvent(members, limits: limits, channelNames: app.signer.limits)
        } catch {
            return .rejected(reason: error.message)
        }
        if let limit = app.limits.backendEventsPerSecond, !rates.take(event.channels.count, .backendEvents, appID: app.id, perSecond: limit, at: clock.now) {
            return .retryLater
        }
        do {
            _ = try await channels.trigger(event, appID: app.id)
        } catch {
            // The channel's history could not take it: the whole event is tried again (its
            // channels before that one get it twice; the Cluster article says so).
            return .retryLater
        }
        return .delivered
    }
}
