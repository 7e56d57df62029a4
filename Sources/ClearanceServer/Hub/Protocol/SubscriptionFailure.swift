/// Why a subscription was refused, sent to the client as a per-channel
/// `pusher:subscription_error` frame: `{"type":…,"error":…,"status":…}` (the shape soketi
/// and pusher-js use).
struct SubscriptionFailure: Error, Sendable, Equatable {
    /// `AuthError`, `LimitReached` or `InvalidChannel`.
    let type: String
    /// A human-readable reason; never echoes secrets.
    let error: String
    /// 400 for bad input, 401 for a missing or wrong signature, 403 for a forbidden channel or
    /// a connection at its channel limit, 429 for too many subscribes, 503 for a hub at its
    /// subscription limit, 4100 for a full presence channel.
    let status: Int

    static func invalidChannel(_ reason: String) -> Self {
        Self(type: "InvalidChannel", error: reason, status: 400)
    }

    static func auth(_ reason: String, status: Int = 401) -> Self {
        Self(type: "AuthError", error: reason, status: status)
    }

    static func limitReached(_ reason: String, status: Int = 4100) -> Self {
        Self(type: "LimitReached", error: reason, status: status)
    }
}
