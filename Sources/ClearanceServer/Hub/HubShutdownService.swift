import ServiceLifecycle

/// Closes every connection with 4200 ("reconnect") when the service group shuts down.
///
/// Listed after the HTTP server in the group, so it is shut down first (service groups shut
/// down in reverse order): the clients get the Pusher close code before the server stops.
struct HubShutdownService: Service {
    let hub: Hub

    func run() async throws {
        // Returns when shutdown begins; throws only if the group is cancelled instead.
        try? await gracefulShutdown()
        await hub.closeAllConnections()
    }
}
