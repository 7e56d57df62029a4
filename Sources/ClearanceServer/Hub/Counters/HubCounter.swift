/// What the hub counts when it refuses, cuts or closes something to protect itself: each a
/// number that only grows while the hub runs, read through ``HubCounters``.
///
/// The raw values are stable names (snake case), for logs and metrics (``HubMetrics`` exports
/// the refusals as `clearance_connections_refused_total{reason}`, the others as
/// `clearance_<raw value>_total`).
public enum HubCounter: String, Sendable, Hashable, CaseIterable {
    /// A socket closed at accept: the hub had as many sockets open as its descriptor budget
    /// allows (see ``HubConnectionLimits/maxConnections`` and <doc:Limits>).
    case socketsRefusedAtDescriptorBudget = "sockets_refused_descriptor_budget"
    /// A socket closed at accept: ``HubHTTPAPILimits/maxHTTPConnections`` sockets were open that had
    /// not become WebSockets.
    case socketsRefusedAtHTTPLimit = "sockets_refused_http_limit"
    /// A socket closed at accept: its address already had ``HubConnectionLimits/maxConnectionsPerIP``
    /// sockets open.
    case socketsRefusedAtAddressLimit = "sockets_refused_address_limit"
    /// An HTTP connection closed because a request's head and body did not arrive within
    /// ``HubHTTPAPILimits/httpRequestTimeout``.
    case requestsCutAtDeadline = "requests_cut_deadline"
    /// A connection whose first request did not parse as HTTP: answered 400 and closed at once.
    case malformedRequestsRefused = "malformed_requests_refused"
    /// A WebSocket closed with 4100 because it left more than ``HubConnectionLimits/maxOutboundBytes``
    /// unsent (a client that does not read).
    case slowReadersClosed = "slow_readers_closed"
    /// A subscription refused because the hub held ``HubChannelLimits/maxSubscriptions`` already.
    case subscriptionsRefusedAtHubLimit = "subscriptions_refused_hub_limit"
    /// A webhook POST that failed (an answer other than 2xx, or none within
    /// ``HubWebhookLimits/webhookAttemptTimeout``); it is retried until ``HubWebhookLimits/webhookRetryDuration``.
    case webhookAttemptsFailed = "webhook_attempts_failed"
    /// A webhook event given up: still failing after ``HubWebhookLimits/webhookRetryDuration``, the
    /// oldest waiting when its app's part of the queue or the queue was full (in events or
    /// bytes), too large for any body (``HubWebhookLimits/maxWebhookBatchBytes``), refused alone with
    /// 413, or no longer wanted by its target.
    case webhooksDropped = "webhooks_dropped"
    /// A browser's WebSocket upgrade refused with 403: its page's origin is not in the app's
    /// ``HubAppConfiguration/allowedOrigins``.
    case webSocketsRefusedAtOrigin = "websockets_refused_origin"
    /// A WebSocket refused with 4100 after its upgrade: the hub held ``HubConnectionLimits/maxConnections``.
    case connectionsRefusedAtHubLimit = "connections_refused_hub_limit"
    /// A WebSocket refused with 4004 after its upgrade: its app held its
    /// ``HubAppConfiguration/maxConnections``, or its part (``HubConnectionLimits/appShare``) of the hub's.
    case connectionsRefusedAtAppLimit = "connections_refused_app_limit"
    /// A WebSocket refused with 4100 after its upgrade: its address already held
    /// ``HubConnectionLimits/maxUnauthorizedConnectionsPerIP`` connections that had not authorized.
    case connectionsRefusedUnauthorizedAtAddress = "connections_refused_unauthorized_address"
    /// A subscription refused because its app held its part (``HubConnectionLimits/appShare``) of the
    /// hub's ``HubChannelLimits/maxSubscriptions``.
    case subscriptionsRefusedAtAppLimit = "subscriptions_refused_app_limit"
    /// A WebSocket refused with 4200 after its upgrade: the hub was shutting down.
    case connectionsRefusedShuttingDown = "connections_refused_shutting_down"
    /// A WebSocket refused after its upgrade for its path: an app that does not exist (4001) or
    /// is disabled (4003), no path or protocol version the hub speaks (4005 to 4008).
    case connectionsRefusedAtRequest = "connections_refused_request"
    /// An HTTP API request answered 429: its app publishes or reads faster than its
    /// `backendEventsPerSecond` or `readRequestsPerSecond` (``HubAppConfiguration``).
    case httpRequestsRateLimited = "http_requests_rate_limited"
    /// An event an app published from its transaction (`clearance_publish`) that can never be
    /// delivered (an unknown app, a bad channel or event name, data too large): set aside with its
    /// reason (`clearance_outbox_rejected_total`).
    case outboxRejected = "outbox_rejected"
    /// A client resumed a channel with a history and got every event it missed
    /// (`clearance_resumes_total{result="recovered"}`).
    case resumesRecovered = "resumes_recovered"
    /// A client resumed a channel with a history and was told to fetch the state itself
    /// (`clearance_resumes_total{result="not_recovered"}`).
    case resumesNotRecovered = "resumes_not_recovered"
}
