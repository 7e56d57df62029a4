import Clearance

/// Collects the authorizations asked for within a short ``window`` and sends them to the auth
/// endpoint in one POST (the pusher-js-auth plugin's format:
/// `socket_id=…&channel_name[0]=a&channel_name[1]=b`, answered with
/// `{"a":{"status":200,"data":{…}},"b":{"status":403}}`).
///
/// Falls back channel by channel: when the batched request fails as a whole (an endpoint that
/// does not batch, a 5xx, a timeout), every channel in it is asked for on its own; when one entry
/// fails with anything but 401/403 (a missing entry is a 404), that channel alone is asked for
/// again on its own. A 401 or 403 entry is the server's answer and is final.
public actor BatchingChannelAuthorizer: ChannelAuthorizer {
    private struct Waiter {
        let channelName: String
        let continuation: CheckedContinuation<Result<ChannelAuthorization, ChannelAuthorizationError>, Never>
    }

    /// The single-request authorizer whose endpoint receives the batches.
    public nonisolated let server: ServerChannelAuthorizer
    /// How long requests are collected before a batch is sent.
    public nonisolated let window: Duration
    /// The most channels in one batch; a full batch is sent at once.
    public nonisolated let maximumBatchSize: Int

    private var pending: [String: [UInt64: Waiter]] = [:]   // socket id → waiters
    private var scheduled: Set<String> = []
    private var nextID: UInt64 = 0
    /// HTTP requests sent so far: batches and single fallbacks.
    package private(set) var requestCount = 0
    /// Batches sent so far.
    package private(set) var batchCount = 0

    /// - Parameters:
    ///   - server: Where batches go (its endpoint, headers, credential, timeout).
    ///   - window: How long to collect. Default 20 ms.
    ///   - maximumBatchSize: The most channels in one request. Default 100.
    public init(server: ServerChannelAuthorizer, window: Duration = .milliseconds(20), maximumBatchSize: Int = 100) {
        self.server = server
        self.window = window
        self.maximumBatchSize = max(1, maximumBatchSize)
    }

    public func authorize(socketID: String, channelName: String) async throws(ChannelAuthorizationError) -> ChannelAuthorization {
        nextID += 1
        let id = nextID
        return try await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                enqueue(Waiter(channelName: channelName, continuation: continuation), id: id, socketID: socketID)
            }
        } onCancel: {
            Task { await self.cancel(id: id, socketID: socketID) }
        }.get()
    }

    private func enqueue(_ waiter: Waiter, id: UInt64, socketID: String) {
        if Task.isCancelled {
            waiter.continuation.resume(returning: .failure(.cancelled))
            return
        }
        pending[socketID, default: [:]][id] = waiter
        if pending[socketID]!.count >= maximumBatchSize {
            flush(socketID: socketID)
        } else if scheduled.insert(socketID).inserted {
            Task { [window] in
                try? await Task.sleep(for: window)
                self.flush(socketID: socketID)
            }
        }
    }

    private func cancel(id: UInt64, socketID: String) {
        pending[socketID]?.removeValue(forKey: id)?.continuation.resume(returning: .failure(.cancelled))
    }

    private func flush(socketID: String) {
        scheduled.remove(socketID)
        guard let waiters = pending.removeValue(forKey: socketID), !waiters.isEmpty else { return }
        let batch = Array(waiters.values)
        for start in stride(from: 0, to: batch.count, by: maximumBatchSize) {
            let slice = Array(batch[start..<min(start + maximumBatchSize, batch.count)])
            Task { await self.send(slice, socketID: socketID) }
        }
    }

    private func send(_ waiters: [Waiter], socketID: String) async {
        let names = Array(Set(waiters.map(\.channelName))).sorted()
        requestCount += 1
        batchCount += 1
        var results: [String: Result<ChannelAuthorization, ChannelAuthorizationError>]
        do {
            results = try await server.authorizeBatch(socketID: socketID, channelNames: names)
        } catch {
            // The batch as a whole failed: ask for each channel on its own.
            results = [:]
            for name in names { results[name] = await single(socketID: socketID, channelName: name) }
            return deliver(results, to: waiters)
        }
        for name in names {
            if case .failure(let error) = results[name], Self.fallsBack(error) {
                results[name] = await single(socketID: socketID, channelName: name)
            }
        }
        deliver(results, to: waiters)
    }

    private func single(socketID: String, channelName: String) async -> Result<ChannelAuthorization, ChannelAuthorizationError> {
        requestCount += 1
        do {
            return .success(try await server.authorize(socketID: socketID, channelName: channelName))
        } catch {
            return .failure(error)
        }
    }

    private func deliver(_ results: [String: Result<ChannelAuthorization, ChannelAuthorizationError>], to waiters: [Waiter]) {
        for waiter in waiters {
            let result = results[waiter.channelName] ?? .failure(.httpStatus(HTTPErrorResponse(status: 404)))
            waiter.continuation.resume(returning: result)
        }
    }

    /// 401 and 403 are the server's decision; anything else is worth one request of its own.
    static func fallsBack(_ error: ChannelAuthorizationError) -> Bool {
        if case .httpStatus(let response) = error, response.status == 401 || response.status == 403 { return false }
        return true
    }
}
