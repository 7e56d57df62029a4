import Foundation

/// The real clock: `Date()` for wall-clock time, `ContinuousClock` for monotonic time, `Task.sleep`.
public struct SystemOAuth2Clock: OAuth2Clock {
    private static let origin = ContinuousClock.now

    public init() {}

    public var now: Date { Date() }

    public var uptime: Duration { ContinuousClock.now - Self.origin }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
